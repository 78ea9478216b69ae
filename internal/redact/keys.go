package redact

import (
	"strings"
	"unicode"
)

// IsSecretKey reports whether the value of a key, flag or header named k
// must never be written. k is split into words at every character that is
// not a letter or digit ("X-Auth-Token", "api_key", "--client-secret"), and
// a word is secret when it
//   - holds password, passwd, passphrase, secret, token, cookie, credential
//     or private ("mysqlpassword", "privatekey", "authtoken"),
//   - is pass, pwd or pw,
//   - is or ends in key or dsn ("apikey", "accesskey", "database_dsn"),
//   - starts with auth ("auth", "authorization", "authn"), except author and
//     authority, which name people and certificate issuers, or ends in auth
//     ("oauth", "basicauth").
func IsSecretKey(k string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(k), notAlnum) {
		if secretWord(w) {
			return true
		}
	}
	return false
}

func notAlnum(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// containedWords make a word secret wherever they occur in it.
var containedWords = []string{"password", "passwd", "passphrase", "secret", "token", "cookie", "credential", "private"}

func secretWord(w string) bool {
	for _, c := range containedWords {
		if strings.Contains(w, c) {
			return true
		}
	}
	switch {
	case w == "pass" || w == "pwd" || w == "pw":
		return true
	case strings.HasSuffix(w, "key") || strings.HasSuffix(w, "dsn"):
		return true
	case strings.HasSuffix(w, "auth"):
		return true
	case strings.HasPrefix(w, "auth"):
		return !strings.HasPrefix(w, "author") || strings.HasPrefix(w, "authoriz") || strings.HasPrefix(w, "authoris")
	}
	return false
}

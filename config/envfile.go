package config

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// An env_file holds KEY=VALUE lines in the dotenv style most tools write:
//
//	# a comment
//	export API_TOKEN=abc123      (export is allowed and ignored)
//	NAME = value # comment       (unquoted: trimmed, " #" starts a comment)
//	GREETING="a \"quoted\"\nvalue"   (double quotes: \n \t \r \" \\ escapes)
//	RAW='$kept as written'       (single quotes: nothing is interpreted)
//
// Nothing is expanded: "$HOME" is those five characters. A value spans one
// line. This is written here rather than taken from a dotenv library because
// its errors must name the line and never quote the value (the values are
// secrets), and because expansion would make the environment depend on who
// reads the file.

// maxEnvFile bounds what is read: an env_file is a few lines of settings.
const maxEnvFile = 1 << 20

var envKeyRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]*$`)

// envFileError is a problem on one line of an env_file; it never holds the
// value.
type envFileError struct {
	line int
	msg  string
}

func (e *envFileError) Error() string { return "line " + strconv.Itoa(e.line) + ": " + e.msg }

// readEnvFile reads and parses the env_file at path.
func readEnvFile(path string) (map[string]string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, unwrapPath(err))
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, unwrapPath(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxEnvFile+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, unwrapPath(err))
	}
	if len(data) > maxEnvFile {
		return nil, fmt.Errorf("%s is larger than 1MiB: an env_file holds KEY=VALUE lines", path)
	}
	env, err := parseEnvFile(data)
	if err != nil {
		return nil, fmt.Errorf("%s %w", path, err)
	}
	return env, nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// parseEnvFile parses dotenv lines. A key given twice is an error, as in the
// TOML file: one of the two would silently lose.
func parseEnvFile(data []byte) (map[string]string, error) {
	env := map[string]string{}
	first := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), maxEnvFile+1)
	for n := 1; sc.Scan(); n++ {
		key, value, ok, err := parseEnvLine(strings.TrimSuffix(sc.Text(), "\r"))
		if err != nil {
			return nil, &envFileError{n, err.Error()}
		}
		if !ok {
			continue
		}
		if l, dup := first[key]; dup {
			return nil, &envFileError{n, fmt.Sprintf("%s defined twice (first at line %d): keep one", key, l)}
		}
		first[key], env[key] = n, value
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return env, nil
}

// parseEnvLine returns ok=false for a blank or comment line. Errors never
// quote the value.
func parseEnvLine(line string) (key, value string, ok bool, err error) {
	t := strings.TrimSpace(line)
	if t == "" || strings.HasPrefix(t, "#") {
		return "", "", false, nil
	}
	t = strings.TrimPrefix(t, "export ")
	k, v, found := strings.Cut(t, "=")
	k = strings.TrimSpace(k)
	if !found || !envKeyRE.MatchString(k) {
		return "", "", false, errors.New("want KEY=VALUE, with KEY made of letters, digits, '_' and '.', not starting with a digit (the value is not shown)")
	}
	value, err = envValue(strings.TrimSpace(v))
	if err != nil {
		return "", "", false, fmt.Errorf("%s: %w (the value is not shown)", k, err)
	}
	if strings.ContainsRune(value, 0) {
		return "", "", false, fmt.Errorf("%s: the value contains a NUL byte, which no OS can pass to a process", k)
	}
	return k, value, true, nil
}

func envValue(v string) (string, error) {
	switch {
	case strings.HasPrefix(v, `"`):
		return doubleQuoted(v[1:])
	case strings.HasPrefix(v, `'`):
		end := strings.IndexByte(v[1:], '\'')
		if end < 0 {
			return "", errors.New("no closing ' on this line: a value spans one line")
		}
		return v[1 : 1+end], afterQuote(v[2+end:])
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = v[:i]
	}
	return strings.TrimSpace(v), nil
}

func doubleQuoted(v string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '"':
			return b.String(), afterQuote(v[i+1:])
		case c == '\\' && i+1 < len(v):
			i++
			switch v[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			default: // \" \\ \$ and anything else: the character itself
				b.WriteByte(v[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", errors.New(`no closing " on this line: a value spans one line`)
}

// afterQuote allows only white space or a comment after a quoted value.
func afterQuote(rest string) error {
	rest = strings.TrimSpace(rest)
	if rest == "" || strings.HasPrefix(rest, "#") {
		return nil
	}
	return errors.New("text after the closing quote: quote the whole value")
}

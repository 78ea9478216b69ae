// Package redact is the one home of svc-ctl's secret rules (docs/security.md,
// "Secrets"). Every writer — config check, probe results, snapshots,
// logs, run_trace details, watchdog.last.json, `svc-ctl exec`, metrics and
// notifications — passes its text through a Redactor, so there is one answer
// to "is this a secret?" and it is the same everywhere.
//
// The rules, in the order String applies them:
//
//  1. every env and env_file value of the config, matched as a whole token
//     (a value that is part of a longer word is not it), longest first;
//  2. URLs: userinfo and every query and fragment value;
//  3. the value after a flag named like a secret (--password X, --token=X),
//     and the password of "user:password" after -u, --user, -U or
//     --proxy-user (curl's way: the user is kept);
//  4. the value of a key named like a secret (password=X, "token": "X",
//     Authorization: Bearer X).
//
// A key or flag is "named like a secret" when one of its words is or holds
// password, passwd, passphrase, secret, token, cookie, credential, private,
// ends in key or dsn, or starts with auth (not author/authority); see
// IsSecretKey.
//
// Values that cannot be secrets are never scrubbed, so evidence survives:
// numbers, IP addresses (with or without a port, CIDR too), localhost,
// true/false/yes/no/on/off, values under 4 characters, and lists made only of
// these ("127.0.0.1,localhost"). See Harmless.
//
// What this package must never do: put a secret in its own errors or logs,
// change a number or an IP address that is not the value of a secret key or
// flag, or return a text that still holds a configured secret as a whole
// token. It imports only the standard library.
package redact

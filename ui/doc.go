// Package ui is svc-ctl's local status page (`svc-ctl ui`): the services, the
// jobs, a timeline of every run, the detail behind a restart, and the agent,
// served from the CLI process out of the state directory and the ledger,
// with a few guarded actions (start, restart, pause, resume).
//
// The page is embedded (assets/: hand-written HTML, CSS and JavaScript
// modules, one per view, no build step, no network) and uses only the JSON
// API this package serves; every API path needs the random token `svc-ctl
// ui` prints, as an Authorization: Bearer header: the printed URL carries it
// in its fragment, which the page moves into sessionStorage. The page and
// its static assets hold no data and are served without it. No cookie (a
// browser sends one of 127.0.0.1 to every port), no token in a query or in
// any process's argv (`ui --open` hands the browser a redirect file instead:
// open.go). Actions are POSTs that must also come from the page's own origin.
//
// What this package must never do:
//   - write to the ledger or the state directory when it reads: every read
//     opens run_trace read-only (through report), and only an action, run
//     through the same watchdog code as the CLI verb with the same checks,
//     writes, recorded as manual and by "ui";
//   - answer anything but its own static files without the token, or act
//     on a request from another origin;
//   - put the token where another local user can read it: a cookie, a URL
//     query, a process's argv;
//   - show a secret: log tails are redacted with internal/redact and the
//     config's secret values; rows and snapshots were redacted when written;
//   - load anything from outside the binary (no CDN, no font, no external
//     origin in its Content-Security-Policy).
package ui

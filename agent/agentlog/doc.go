// Package agentlog is where the agent's own log lines go: a JSON-lines
// logger whose every line is redacted once (values under secret-looking keys,
// every env value of the configuration), and the destinations it writes to
// (agent.log, journald's native protocol, the Windows Event Log), with stderr
// taking a line no destination took.
//
// What this package must never do: write a line before it is redacted, let
// one destination's failure lose a line the others or stderr could take, or
// log a raw config, env or request body.
package agentlog

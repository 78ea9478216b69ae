// Package benchkit is the shared plumbing of svc-ctl's benchmark programs
// under bench/: building the real binaries, writing configs, starting and
// stopping the agent, polling a service, reading a process's CPU and memory,
// and summarising trials (median and range).
//
// What it must never do: leave a process behind (everything it starts is
// registered for cleanup and stopped by its PID, a service instance only
// after its recorded identity is proven), listen or probe anywhere but
// 127.0.0.1, wait without a deadline, or run a shell.
package benchkit

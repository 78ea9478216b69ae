// Package install puts the svc-ctl agent under the OS service manager (L1):
// systemd, SysV init, OpenRC, launchd or the Windows service control manager,
// through github.com/kardianos/service; and registers the backstop, an OS
// scheduled task independent of the agent that runs `svc-ctl start --all`.
//
// The work is split in two so that every generated file is tested on any OS:
//
//   - rendering is pure: RenderUnit and RenderBackstop take a Spec (paths,
//     drain timeout, scope) and a Target (GOOS and init system) and return
//     the files' exact contents; golden files in testdata/install hold them.
//   - applying goes through two small seams: the service manager (kardianos)
//     and the OS command runner (systemctl, launchctl, schtasks), both
//     package variables that tests replace.
//
// Install and Uninstall are idempotent and say what they did. Install loads
// and validates the config before it touches anything. Detect and
// RunServiceContext are for the agent command: how it was started, and
// running it under the Windows SCM when that is what started it.
//
// This package must never run a shell (every command is an argv), never write
// a generated file whose paths could change its meaning (newlines, template
// braces and, where a format cannot carry them, quotes are refused), and
// never remove anything it did not create: uninstall leaves the state
// directory, the evidence, alone.
package install

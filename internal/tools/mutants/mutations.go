package main

// mutations is the table `make mutants` runs: each is a change of behaviour
// the suite must notice, applied alone, with the tests that must fail on it.
//
// A mutation is keyed by its package, its declaration and a pattern, never a
// line number: "backoffFor" (a function), "(*cycle).mustSync" (a method),
// "var instanceKeys" (a package-level variable). Each pattern must occur
// exactly once in that declaration's source; when code moves to another
// file of the package the mutation follows it, and when the declaration or
// the pattern is gone the target fails ("not applied") until the row is
// re-keyed. Never delete a row to make the target pass: re-key it to where
// the behaviour now lives.
//
// Tests that build a binary with `go build` (cmd/svc-ctl's TestMain) see the
// mutation too: it is applied through GOFLAGS=-overlay, which every go
// command the tests run inherits.
var mutations = []mutation{
	{
		name: "backoff never doubles",
		pkg:  "./watchdog", decl: "backoffFor",
		edits: []edit{{"d *= 2", "d *= 1"}},
		run:   "^TestBackoffFor$",
	},
	{
		name: "backoff never capped at backoff_max",
		pkg:  "./watchdog", decl: "backoffFor",
		edits: []edit{{"if d >= max || d <= 0 {", "if d <= 0 {"}, {"if d > max {", "if false {"}},
		run:   "^TestBackoffFor$",
	},
	{
		name: "SIGTERM, SIGINT, SIGHUP from outside counted as a crash",
		pkg:  "./watchdog", decl: "killedFromOutside",
		edits: []edit{{`[]string{"SIGKILL", "SIGTERM", "SIGINT", "SIGHUP"}`, `[]string{"SIGKILL"}`}},
		run:   "^(TestKilledFromOutside|TestDescribeExitWordsOfKills)$",
	},
	{
		name: "state.json and watchdog.last.json never fsynced (mustSync always false)",
		pkg:  "./watchdog", decl: "(*cycle).mustSync",
		edits: []edit{{"return !(", "return false && !("}},
		run:   "^(TestMustSync|TestRowDurabilityByCycle)$",
	},
	{
		name: "a lazy cycle keeps a changed state.json in memory (facts not compared)",
		pkg:  "./watchdog", decl: "(*Supervisor).skipState",
		edits: []edit{{"!sameFacts(w.onDisk, st)", "false"}},
		run:   "^TestLazyWriteOfAChangedFactIsWritten$",
	},
	{
		name: "a lazy cycle keeps a changed watchdog.last.json entry in memory (words not compared)",
		pkg:  "./watchdog", decl: "(*Supervisor).skipLast",
		edits: []edit{{"r.Message != w.r.Message", "false"}},
		run:   "^TestLazyWriteOfAChangedFactIsWritten$",
	},
	{
		name: "another writer's state.json not read again (the kept copy wins)",
		pkg:  "./watchdog", decl: "(*Supervisor).keptState",
		edits: []edit{{"if !ok || !sameFile(path, w.fi) {", "if !ok {"}},
		run:   "^TestAnotherWritersStateIsReadAgain$",
	},
	{
		name: "state.json never refreshed while nothing changes",
		pkg:  "./watchdog", decl: "(*Supervisor).skipState",
		edits: []edit{{"s.now().Sub(w.savedAt) >= refreshEvery", "false"}},
		run:   "^TestHealthyCyclesWriteNothingNew$",
	},
	{
		name: "a healthy cycle that changes nothing rewrites state.json",
		pkg:  "./watchdog", decl: "(*Supervisor).saveState",
		edits: []edit{{"if !durable && !waited && s.skipState(name, path, st) {", "if false {"}},
		run:   "^TestHealthyCyclesWriteNothingNew$",
	},
	{
		name: "an env or env_file change on reload keeps the running instance",
		pkg:  "./agent/reloadplan", decl: "var instanceKeys",
		edits: []edit{{`"env": true, "env_file": true, `, ""}},
		run:   "^TestReloadPlanServiceKeys$",
	},
	{
		name: "a heartbeat change applied live instead of held for a restart",
		pkg:  "./agent/reloadplan", decl: "Compare",
		edits: []edit{{"eff.Agent.Heartbeat = old.Agent.Heartbeat", "eff.Agent.Heartbeat = next.Agent.Heartbeat"}},
		run:   "^TestReloadPlanAgentKeys$",
	},
	{
		name: "job.missing no longer an escalation under min_interval",
		pkg:  "./notify", decl: "lastEscalation",
		edits: []edit{{"k == KindServiceGivenUp || k == KindJobMissing", "k == KindServiceGivenUp"}},
		run:   "^TestEscalationKinds$",
	},
	{
		name: "the webhook HMAC computed over SHA-224",
		pkg:  "./notify", decl: "Sign",
		edits: []edit{{"hmac.New(sha256.New, secret)", "hmac.New(sha256.New224, secret)"}},
		run:   "^(TestSignKnownAnswers|TestReceiverDownThenUp|TestSecretFileChannels)$",
	},
	{
		name: "a killed agent's orphaned job run is left running",
		pkg:  "./agent/reaper", decl: "(*Reaper).stopOrphan",
		edits: []edit{{"res, err := proc.StopTree(ctx, inst, orphanStopTimeout)", "res, err := proc.StopResult{AlreadyGone: ctx != nil}, error(nil)"}},
		run:   "^TestOrphanedJobRunIsStopped$",
	},
	{
		name: "a run_trace row does not record the boot it was written in",
		pkg:  "./runtrace", decl: "(*Store).beginAs",
		edits: []edit{{"nullString(instance), nullString(boot), d)", "nullString(instance), nil, d)"}},
		run:   "^TestRowsNameTheirBoot$",
	},
	{
		name: "a ledger write after Close reaches the database (a late beat brings back a stopped agent's heartbeat)",
		pkg:  "./runtrace", decl: "(*Queue).writeOrQueue",
		edits: []edit{{"if q.closed {", "if false {"}},
		run:   "^TestWritesAfterCloseAreRefused$",
	},
	{
		name: "a delivery the receiver refused for good is retried instead of ending failed",
		pkg:  "./notify", decl: "(outbox).failed",
		edits: []edit{{"to, done = runtrace.DeliveryFailed, at", "to, done = runtrace.DeliveryPending, time.Time{}"}},
		run:   "^TestDeliveryBookkeeping$",
	},
	{
		name: "a sender whose claim was lost still records its failed attempt over the new owner's",
		pkg:  "./notify", decl: "(outbox).failed",
		edits: []edit{{"MustHold: len(ds) == 1", "MustHold: false"}},
		run:   "^TestLateReportOfALostClaim$",
	},
	{
		name: "the reboot drill tells rows to a boot by nothing (every row in every boot)",
		pkg:  "./e2e/rebootdrill/verdict", decl: "(*evidence).inBoot",
		edits: []edit{{"return ok && r.Boot == id", `return ok && id != ""`}},
		run:   "^(TestBackstopRestoreSecondsBeforeReboot|TestMainRowsSecondsBeforeRebootStayInTheirBoot)$",
	},
	{
		name: "a file with a second hard link in a pinned log directory is acted on",
		pkg:  "./internal/fsutil", decl: "checkOpened",
		edits: []edit{{"n != 1 {", "n == 0 {"}},
		run:   "^TestPinnedOpenRefusesWhatIsNotAPlainFile$",
	},
	{
		name: "the per-element walk to a log directory follows a link",
		pkg:  "./internal/fsutil", decl: "openDirAt",
		edits: []edit{{"unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC", "unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC"}},
		run:   "^TestOpenDirRefusesALinkOnAnyElement$",
	},
	{
		name: "the status page keeps an idle connection open",
		pkg:  "./ui", decl: "(*Server).Serve",
		edits: []edit{{"IdleTimeout:       idleTimeout,", ""}},
		run:   "^TestSlowAndIdleClientsAreCut$",
	},
}

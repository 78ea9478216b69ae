// Package schedule turns a job's cron expression and time zone into slots:
// the instants at which a run is due. It answers four questions for the
// agent and the CLI: when is the next run (Next), which runs should have
// started by now (Expected), which of those have no run (Missing), and, after
// downtime or host sleep, which one slot a catch-up run serves (CatchUpSlot).
//
// Expressions are robfig/cron's standard syntax: five fields (minute, hour,
// day of month, month, day of week) or a descriptor (@yearly, @monthly,
// @weekly, @daily, @hourly, @every <duration>). Only robfig's parser is
// used; slots are computed here, in wall-clock terms in the schedule's zone,
// because robfig's Next skips a slot in the hour that daylight saving time
// removes and runs a slot twice in the hour it repeats. The DST policy:
//
//   - A schedule with fixed hours ("30 2 * * *") follows the wall clock. A
//     slot whose wall time is skipped runs once, at the first instant after
//     the gap (03:00 local for 02:30); a slot whose wall time happens twice
//     runs once, at the first (earlier) occurrence.
//   - A schedule whose hour field is every hour ("0 * * * *", "*/5 * * * *")
//     follows elapsed time: a wall time that never happens has no slot, and a
//     wall time that happens twice has two slots, at distinct UTC instants.
//   - @every D is a fixed interval in absolute time: anchor + k*D (k >= 1),
//     unaffected by DST. The agent anchors it at the job's registration
//     (WithAnchor); an unanchored @every schedule counts from the Unix epoch.
//
// The zone database is embedded (time/tzdata): a Windows host without
// zoneinfo would otherwise fail to load "Asia/Shanghai", and code that
// shrugged that off would run the job in UTC, hours off, without a word.
//
// This package must never read the clock (every function takes the times it
// needs, so tests inject them), never fall back to UTC or Local for a missing
// zone, and never import the other svc-ctl packages: it depends only on the
// standard library and robfig/cron's parser.
package schedule

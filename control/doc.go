// Package control is how the command line hands a request to the running
// agent, and how the agent answers. One mechanism for every kind (reload,
// run a job now, interrupt that run; more can be added):
//
//  1. the command writes <state>/requests/<id>.req, a Request with a fresh
//     random id, atomically (a temporary file renamed into place), 0600 in
//     the 0700 requests directory, never through a link (Post);
//  2. it wakes the agent whose pid agent.pid names while it holds
//     agent.lock: SIGHUP for a reload, SIGUSR1 for every other kind on
//     unix, a named event on Windows (Wake). An agent that does not list
//     the kind in agent.status (Serves) is never woken for it: SIGUSR1
//     would end an agent that predates it;
//  3. the agent claims each request by renaming it (a request is taken
//     once, whoever else looks), reads it and answers with one or more
//     Responses, <id>.<seq>.resp (Take, Reply);
//  4. the command waits for the answer it needs with a deadline (Await),
//     and tells "never taken" (the request is withdrawn) from "taken, no
//     answer yet", and both from "the agent stopped".
//
// With no agent holding the lock, Send returns ErrNoAgent at once: the
// caller decides what happens then (`svc-ctl run` runs the job itself;
// `reload` has nothing to reload).
//
// What it must never do: carry what to run. A request names a service or
// job of the config the agent runs, and options; argv, env, paths and users
// come from the agent's own config. Nor may it trust what it reads: the
// agent takes only regular files (no link followed), at most maxRequest
// bytes, and a privileged agent only those owned by its own user that no
// one else can write. Requests older than RequestTTL were never signalled
// and are dropped.
package control

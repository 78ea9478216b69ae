package proc

import (
	"fmt"
	"time"
)

// WatchTree returns a channel that is closed once no process of inst's
// tree is left. It is how the agent learns that an instance ended when its
// leader (a launcher) exited long before the rest of the tree.
//
// It waits on each known member's exit (WatchExit: a pidfd, a kqueue note,
// a process handle; no polling) and lists the tree again whenever one ends,
// so processes forked meanwhile are found before the channel closes. An
// instance with no live process gives ErrGone.
func WatchTree(inst Instance) (<-chan struct{}, error) {
	return WatchTreeWith(inst, func() (Tree, error) {
		t, rec, err := Look(inst, Scan)
		inst = rec // what one look saw, the next one knows
		return t, err
	})
}

// WatchTreeWith is WatchTree with the caller's look: it lists the tree at
// the start and after every exit of a member (the agent's look remembers
// what it sees in the instance record).
func WatchTreeWith(inst Instance, look func() (Tree, error)) (<-chan struct{}, error) {
	t, err := look()
	if err != nil {
		return nil, err
	}
	if t.Len() == 0 {
		return nil, fmt.Errorf("watch pid %d: %w", inst.PID, ErrGone)
	}
	w := &treeWatch{look: look, exited: make(chan struct{}, 1), watched: map[memberKey]bool{}}
	if err := w.add(t); err != nil {
		return nil, err
	}
	ch := make(chan struct{})
	go w.run(ch)
	return ch, nil
}

type treeWatch struct {
	look    func() (Tree, error)
	exited  chan struct{}      // a member ended (buffered: one pending note is enough)
	watched map[memberKey]bool // by pid and start: a pid reused by a new member is watched again
}

type memberKey struct {
	pid   int32
	start uint64
}

// treeRetry paces a listing that failed (a transient read error of /proc):
// the watch must not end on it, nor spin.
const treeRetry = time.Second

func (w *treeWatch) run(done chan<- struct{}) {
	defer close(done)
	for range w.exited {
		t, err := w.look()
		for err != nil {
			time.Sleep(treeRetry)
			t, err = w.look()
		}
		if t.Len() == 0 {
			return
		}
		if err := w.add(t); err != nil {
			time.Sleep(treeRetry)
			w.note()
		}
	}
}

// add watches the members not yet watched. One that ended between the
// listing and the watch counts as an exit, so the tree is looked at again.
func (w *treeWatch) add(t Tree) error {
	for _, m := range t.Members {
		key := memberKey{m.PID, m.Start}
		if w.watched[key] {
			continue
		}
		ch, err := WatchExit(m.Identity)
		if err != nil {
			if isGone(err) {
				w.note()
				continue
			}
			return err
		}
		w.watched[key] = true
		go func() {
			<-ch
			w.note()
		}()
	}
	return nil
}

func (w *treeWatch) note() {
	select {
	case w.exited <- struct{}{}:
	default:
	}
}

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
	t, err := Members(inst)
	if err != nil {
		return nil, err
	}
	if t.Len() == 0 {
		return nil, fmt.Errorf("watch pid %d: %w", inst.PID, ErrGone)
	}
	w := &treeWatch{inst: inst, exited: make(chan struct{}, 1), watched: map[int32]bool{}}
	if err := w.add(t); err != nil {
		return nil, err
	}
	ch := make(chan struct{})
	go w.run(ch)
	return ch, nil
}

type treeWatch struct {
	inst    Instance
	exited  chan struct{} // a member ended (buffered: one pending note is enough)
	watched map[int32]bool
}

// treeRetry paces a listing that failed (a transient read error of /proc):
// the watch must not end on it, nor spin.
const treeRetry = time.Second

func (w *treeWatch) run(done chan<- struct{}) {
	defer close(done)
	for range w.exited {
		t, err := Members(w.inst)
		for err != nil {
			time.Sleep(treeRetry)
			t, err = Members(w.inst)
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
		if w.watched[m.PID] {
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
		w.watched[m.PID] = true
		go func(pid int32) {
			<-ch
			w.note()
		}(m.PID)
	}
	return nil
}

func (w *treeWatch) note() {
	select {
	case w.exited <- struct{}{}:
	default:
	}
}

package runtrace

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"sync"
	"time"
)

// Queue is the ledger as the agent writes it: the Store's writes, but a row
// the disk cannot take (full, over quota, read-only, locked, damaged) is kept
// in memory and written later, in order and with its own times, as soon as a
// write succeeds again. Nothing a cycle or a job does waits on the disk: once
// a write has failed, further writes go straight to the queue and only the
// retry loop (Run) touches the database until the queue is empty.
//
// Run ids: a row begun while writes fail has no id yet. Begin then returns a
// provisional id (negative); Finish with it lands on the right row whatever
// happened in between: the queued begin is turned into one finished row, or,
// if the begin was written late, the verdict goes to the id it got. Events
// raised by a verdict (FinishEmit, RecordEmit) are derived in the transaction
// that finally writes it, so they follow the row into the outbox.
//
// Bounds: at most QueueOptions.Max row writes wait; past that the oldest is
// dropped and counted (Health.Lost). On Close what is still waiting goes to a
// spill file outside the state dir (spill.go), which the next agent imports;
// what cannot be spilled is counted, never dropped silently.
type Queue struct {
	st  *Store
	o   QueueOptions
	dir string

	flushMu sync.Mutex // one flush at a time: the queue is written in order
	mu      sync.Mutex
	ops     []*op
	rows    int             // row writes among ops (bounded by Max)
	begun   map[int64]*op   // provisional id -> its queued begin, until written or finished
	written map[int64]int64 // provisional id -> the id its begin got when written late
	dropped map[int64]bool  // provisional ids whose begin was dropped (queue full)
	prov    int64           // the last provisional id handed out
	beat    *Heartbeat      // the newest heartbeat that could not be written
	h       Health
	closed  bool
	kick    chan struct{}
	// waits tells Run that writes started to wait (a failed write): Run
	// sleeps without a timer while nothing waits.
	waits chan struct{}
}

// QueueOptions tune a Queue. The zero value is what the agent uses.
type QueueOptions struct {
	// Max bounds the waiting row writes (default 10,000).
	Max int
	// Retry is how often the retry loop tries the database while writes
	// fail (default 1s): a failed try on a full disk costs one syscall.
	Retry time.Duration
	// SpillDirs are where Close puts what it could not write, first that
	// works wins, and where ImportSpills looks (default SpillDirs(db)).
	SpillDirs []string
	// OnChange is called once when writes start failing and once when they
	// work again, outside the queue's locks.
	OnChange func(Health)
	// Emit derives the events of imported rows whose writer had an Emitter
	// (an Emitter cannot be spilled; the importer derives them again).
	Emit Emitter
	// Now is the clock of the condition's times (default time.Now).
	Now func() time.Time
}

// ErrQueueClosed refuses a write made after Close: what waited has been
// spilled, and nothing writes to the database for this queue any more.
var ErrQueueClosed = errors.New("run_trace queue is closed")

// DefaultQueueMax is QueueOptions.Max when left zero.
const DefaultQueueMax = 10_000

type opKind string

const (
	opBegin      opKind = "begin"            // a row begun running
	opRecord     opKind = "record"           // a finished row (Record, or a begin finished while queued)
	opFinish     opKind = "finish"           // the verdict of a row begun earlier
	opNote       opKind = "note"             // the detail of a row still running (Note)
	opEvents     opKind = "events"           // events (and marks) raised by no row
	opDeleteBeat opKind = "delete_heartbeat" // a clean stop's heartbeat delete
)

// op is one waiting write. Its JSON form is a spill file's line.
type op struct {
	Kind opKind `json:"op"`
	// Prov is the provisional id a begin (or a Record) was given; a finish
	// refers to its row by Ref: a real id, or a provisional one whose begin
	// is ahead of it in the queue.
	Prov       int64           `json:"prov,omitempty"`
	Run        *Run            `json:"run,omitempty"`
	Ref        int64           `json:"ref,omitempty"`
	Outcome    Outcome         `json:"outcome,omitempty"`
	Reason     Reason          `json:"reason,omitempty"`
	Detail     json.RawMessage `json:"detail,omitempty"`
	FinishedAt time.Time       `json:"finished_at,omitzero"`
	Emits      bool            `json:"emits,omitempty"` // its writer derived events from it
	Events     []OutboxEvent   `json:"events,omitempty"`
	Marks      map[string]Mark `json:"marks,omitempty"`
	Instance   string          `json:"instance,omitempty"`
	// Boot is the boot a begin or a record was made in (Options.Boot): a
	// row that waits, or is spilled and imported after a reboot, is still
	// told to its own boot. Empty in a spill of an older svc-ctl: NULL.
	Boot string `json:"boot,omitempty"`

	emit     Emitter
	inflight bool // being written by Flush: not merged into, not dropped
}

func (o *op) row() bool { return o.Kind == opBegin || o.Kind == opRecord || o.Kind == opFinish }

// NewQueue wraps st. Call Run in a goroutine for the retries, and Close to
// stop (it spills what is still waiting).
func NewQueue(st *Store, o QueueOptions) *Queue {
	if o.Max <= 0 {
		o.Max = DefaultQueueMax
	}
	if o.Retry <= 0 {
		o.Retry = time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.SpillDirs == nil {
		o.SpillDirs = SpillDirs(st.Path())
	}
	q := &Queue{st: st, o: o, dir: filepath.Dir(st.Path()), begun: map[int64]*op{}, written: map[int64]int64{},
		dropped: map[int64]bool{}, kick: make(chan struct{}, 1), waits: make(chan struct{}, 1)}
	q.h = Health{Up: true, Dir: q.dir, FreeBytes: -1}
	return q
}

// Store is the store the queue writes to (for reads and maintenance).
func (q *Queue) Store() *Store { return q.st }

// Health returns the ledger's write health now.
func (q *Queue) Health() Health {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.healthLocked()
}

func (q *Queue) healthLocked() Health {
	h := q.h
	h.Pending, h.PendingEvents = 0, 0
	for _, o := range q.ops {
		if o.row() {
			h.Pending++
		} else if o.Kind == opEvents {
			h.PendingEvents++
		}
	}
	return h
}

// deferLocked reports whether a write must join the queue rather than go to
// the database: writes are failing, or others wait ahead of it.
func (q *Queue) deferLocked() bool { return !q.h.Up || len(q.ops) > 0 }

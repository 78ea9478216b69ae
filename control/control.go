package control

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"time"

	"svcctl/internal/fsutil"
	"svcctl/state"
)

// Kind names what a request asks for. The agent answers the kinds it lists
// in agent.status (state.AgentReport.Serves).
type Kind string

const (
	// KindReload: re-read the config file (ReloadArgs); one answer, the
	// agent's row for it.
	KindReload Kind = "reload"
	// KindRun: run a configured job now (RunArgs); two answers, Accepted
	// (or the refusal) and then the run's verdict (Finished).
	KindRun Kind = "run"
	// KindInterrupt: end a run that a KindRun request started
	// (InterruptArgs); one answer.
	KindInterrupt Kind = "interrupt"
)

// Request is one request file.
type Request struct {
	ID   string          `json:"id"`
	Kind Kind            `json:"kind"`
	At   time.Time       `json:"at"`
	By   string          `json:"by,omitempty"` // who asked: user@host (pid), for the record
	Args json.RawMessage `json:"args,omitempty"`
}

// Response is one answer to a request. Seq counts the answers of one
// request from 1; Final says no more will come.
type Response struct {
	ID    string    `json:"id"`
	Seq   int       `json:"seq"`
	Kind  Kind      `json:"kind"`
	At    time.Time `json:"at"`
	Final bool      `json:"final,omitempty"`
	// Refused says why the agent did not do what was asked, in words for
	// the person at the terminal ("" when it did). Code classifies it for
	// the exit status: "busy", "unknown", "usage", "stopping".
	Refused string          `json:"refused,omitempty"`
	Code    string          `json:"code,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
}

// Decode reads the response's result into v.
func (r Response) Decode(v any) error {
	if len(r.Result) == 0 {
		return errors.New("the answer carries no result")
	}
	return json.Unmarshal(r.Result, v)
}

// Refusal codes.
const (
	CodeBusy     = "busy"     // what was asked is under way already (a run in flight)
	CodeUnknown  = "unknown"  // the agent's config has no such service or job
	CodeUsage    = "usage"    // not something this verb does (an external job)
	CodeStopping = "stopping" // the agent is draining
)

// Errors the command line tells apart.
var (
	// ErrNoAgent: no agent holds the state dir's lock.
	ErrNoAgent = errors.New("no agent is running")
	// ErrNotServed: the running agent does not list the kind: it is older
	// than this command.
	ErrNotServed = errors.New("the running agent does not take this request")
	// ErrNotTaken: the agent did not take the request within the deadline
	// (it is withdrawn).
	ErrNotTaken = errors.New("the agent did not take the request")
	// ErrNoAnswer: the agent took the request but did not answer within
	// the deadline.
	ErrNoAnswer = errors.New("the agent did not answer in time")
	// ErrAgentGone: the agent stopped before it answered.
	ErrAgentGone = errors.New("the agent stopped before it answered")
)

// RequestTTL is how long a request may wait to be taken: older, its wake
// never came, and the command that wrote it has given up.
const RequestTTL = time.Minute

// answerTTL is how long answers and stream files are kept when nobody
// collects them (the command that asked was killed).
const answerTTL = 10 * time.Minute

// maxRequest bounds a request file: names and options, never data.
const maxRequest = 64 << 10

const (
	reqExt    = ".req"
	takenExt  = ".taken"
	respExt   = ".resp"
	streamExt = ".out"
)

func requestPath(p state.Paths, id string) string { return filepath.Join(p.Requests(), id+reqExt) }
func takenPath(p state.Paths, id string) string   { return filepath.Join(p.Requests(), id+takenExt) }
func responsePath(p state.Paths, id string, seq int) string {
	return filepath.Join(p.Requests(), id+"."+strconv.Itoa(seq)+respExt)
}

// StreamPath is where the agent copies the output of what a request started
// (a job's run), for the command that asked to print as it comes.
func StreamPath(p state.Paths, id string) string { return filepath.Join(p.Requests(), id+streamExt) }

// newID is 16 hex digits of randomness: a request file's name and its key.
func newID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// validID: ids name files, so only what newID makes is taken.
func validID(id string) bool {
	if len(id) != 16 {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil
}

func readSmall(path string) ([]byte, error) {
	f, err := fsutil.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxRequest+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxRequest {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, maxRequest)
	}
	return b, nil
}

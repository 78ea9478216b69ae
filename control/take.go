package control

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"svcctl/internal/fsutil"
	"svcctl/state"
)

// The agent's side: take the requests waiting, answer them, and sweep what
// nobody collected (step 3 of the package comment).

// Take claims and reads every request waiting for the agent of p, oldest
// first, and removes their files. privileged: take only files owned by this
// process's user that no one else can write. Requests that cannot be read,
// or that waited longer than RequestTTL, are dropped and reported in errs.
func Take(p state.Paths, now time.Time, privileged bool) (reqs []Request, errs []error) {
	entries, err := os.ReadDir(p.Requests())
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
		return nil, errs
	}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), reqExt)
		if !ok || !validID(id) {
			continue
		}
		// Claim it: a rename happens once, so a request is taken once, and
		// a command giving up (Withdraw) can tell that it was taken.
		if err := fsutil.Rename(requestPath(p, id), takenPath(p, id)); err != nil {
			continue // withdrawn meanwhile
		}
		r, err := readRequest(takenPath(p, id), id, privileged)
		os.Remove(takenPath(p, id))
		switch {
		case err != nil:
			errs = append(errs, err)
		case now.Sub(r.At) > RequestTTL:
			errs = append(errs, fmt.Errorf("request %s (%s, from %s) waited %s: its wake never came; dropped",
				id, r.Kind, r.At.Format(time.RFC3339), now.Sub(r.At).Round(time.Second)))
		default:
			reqs = append(reqs, r)
		}
	}
	sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].At.Before(reqs[j].At) })
	return reqs, errs
}

func readRequest(path, id string, privileged bool) (Request, error) {
	if privileged {
		if err := fsutil.CheckPrivate(path, os.Geteuid()); err != nil {
			return Request{}, fmt.Errorf("request %s refused: %w", id, err)
		}
	}
	b, err := readSmall(path)
	if err != nil {
		return Request{}, fmt.Errorf("request %s: %w", id, err)
	}
	var r Request
	if err := json.Unmarshal(b, &r); err != nil {
		return Request{}, fmt.Errorf("request %s is damaged: %w", id, err)
	}
	if r.ID != id {
		return Request{}, fmt.Errorf("request %s names another id (%q): dropped", id, r.ID)
	}
	return r, nil
}

// Reply writes one answer to req; the agent calls it. Seq counts from 1.
func Reply(p state.Paths, req Request, r Response) error {
	r.ID, r.Kind = req.ID, req.Kind
	if r.Seq <= 0 {
		r.Seq = 1
	}
	if r.At.IsZero() {
		r.At = time.Now().UTC()
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := fsutil.WriteFileAtomic(responsePath(p, req.ID, r.Seq), append(b, '\n'), fsutil.FilePerm); err != nil {
		return fmt.Errorf("answer request %s: %w", req.ID, err)
	}
	return nil
}

// Result marshals v for a Response.
func Result(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// Sweep removes what nobody collected: answers and stream files older than
// answerTTL (keep says which ids are still in use: a run in flight keeps
// its stream however quiet it is), and requests older than RequestTTL.
func Sweep(p state.Paths, now time.Time, keep func(id string) bool) {
	entries, err := os.ReadDir(p.Requests())
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		id, _, _ := strings.Cut(name, ".")
		if keep != nil && keep(id) {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		ttl := answerTTL
		if strings.HasSuffix(name, reqExt) {
			ttl = RequestTTL
		}
		if now.Sub(fi.ModTime()) > ttl {
			os.Remove(filepath.Join(p.Requests(), name))
		}
	}
}

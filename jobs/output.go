package jobs

import (
	"errors"
	"fmt"
	"io"
	"os"

	"svcctl/internal/fsutil"
)

// jobOutput is a job run's last.log, bounded by log_max however much the job
// prints: the first half is written to last.log as it comes; after that the
// newest half is kept in a ring file beside it (last.log.tail), written in
// place over its oldest bytes. Close appends the ring to last.log in order,
// after a line saying how much was left out between. Memory stays constant;
// disk holds at most log_max (plus, while Close copies, the ring once more).
type jobOutput struct {
	f        *os.File // last.log
	ringPath string
	ring     *os.File // nil until the head is full
	half     int64
	head     int64 // bytes written to f
	total    int64 // bytes written to the ring: its write position is total % half
	err      error // the first write error: later writes are dropped, not retried
}

func openJobOutput(path, ringPath string, logMax int64) (*jobOutput, error) {
	f, err := fsutil.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, fsutil.FilePerm)
	if err != nil {
		return nil, fmt.Errorf("job output: %w", err)
	}
	return &jobOutput{f: f, ringPath: ringPath, half: max(logMax/2, 1)}, nil
}

// Write keeps p's bytes in the head or the ring. It never fails the writer:
// a job must not die of EPIPE because its log could not be written; the
// error is kept for Close.
func (o *jobOutput) Write(p []byte) (int, error) {
	n := len(p)
	if o.err != nil {
		return n, nil
	}
	if o.head < o.half {
		k := min(int64(len(p)), o.half-o.head)
		if _, err := o.f.Write(p[:k]); err != nil {
			o.err = err
			return n, nil
		}
		o.head += k
		p = p[k:]
	}
	for len(p) > 0 {
		if o.ring == nil {
			r, err := fsutil.OpenFile(o.ringPath, os.O_RDWR|os.O_CREATE|os.O_TRUNC, fsutil.FilePerm)
			if err != nil {
				o.err = err
				return n, nil
			}
			o.ring = r
		}
		pos := o.total % o.half
		k := min(int64(len(p)), o.half-pos)
		if _, err := o.ring.WriteAt(p[:k], pos); err != nil {
			o.err = err
			return n, nil
		}
		o.total += k
		p = p[k:]
	}
	return n, nil
}

// Close finishes last.log: head, the note of what was left out, the ring in
// order. The ring file is removed.
func (o *jobOutput) Close() error {
	err := o.err
	if o.ring != nil {
		err = errors.Join(err, o.appendRing())
		err = errors.Join(err, o.ring.Close(), os.Remove(o.ringPath))
	}
	return errors.Join(err, o.f.Close())
}

func (o *jobOutput) appendRing() error {
	if o.total > o.half {
		if _, err := fmt.Fprintf(o.f, "\n[svc-ctl: %d bytes of output left out here: log_max keeps the first and the last %d bytes]\n",
			o.total-o.half, o.half); err != nil {
			return err
		}
		pos := o.total % o.half
		if _, err := io.Copy(o.f, io.NewSectionReader(o.ring, pos, o.half-pos)); err != nil {
			return err
		}
		_, err := io.Copy(o.f, io.NewSectionReader(o.ring, 0, pos))
		return err
	}
	_, err := io.Copy(o.f, io.NewSectionReader(o.ring, 0, o.total))
	return err
}

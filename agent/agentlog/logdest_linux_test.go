package agentlog

import (
	"encoding/binary"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// journald is a test server on a unix datagram socket that reads the
// native protocol as journald does, the memfd form included.
type journald struct {
	t    *testing.T
	conn *net.UnixConn
}

func newJournald(t *testing.T) (*journald, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "journal.socket")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &journald{t: t, conn: conn}, path
}

// next reads one entry: its fields, in order.
func (j *journald) next() map[string]string {
	j.t.Helper()
	buf := make([]byte, 256<<10)
	oob := make([]byte, 128)
	j.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var n, oobn int
	for n == 0 && oobn == 0 { // an empty datagram is no entry (journald skips it too)
		var err error
		if n, oobn, _, _, err = j.conn.ReadMsgUnix(buf, oob); err != nil {
			j.t.Fatalf("read entry: %v", err)
		}
	}
	data := buf[:n]
	if oobn > 0 { // a memfd: the entry is its contents
		msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
		if err != nil || len(msgs) != 1 {
			j.t.Fatalf("control message: %v", err)
		}
		fds, err := unix.ParseUnixRights(&msgs[0])
		if err != nil || len(fds) != 1 {
			j.t.Fatalf("rights: %v", err)
		}
		f := os.NewFile(uintptr(fds[0]), "memfd")
		defer f.Close()
		st, _ := f.Stat()
		data = make([]byte, st.Size())
		if _, err := f.ReadAt(data, 0); err != nil {
			j.t.Fatal(err)
		}
		seals, err := unix.FcntlInt(f.Fd(), unix.F_GET_SEALS, 0)
		if err != nil || seals&unix.F_SEAL_WRITE == 0 {
			j.t.Fatalf("memfd not sealed against writes: %#x, %v", seals, err)
		}
	}
	return parseNative(j.t, data)
}

// parseNative reads FIELD=value lines and FIELD\n<le64 length><bytes>\n.
func parseNative(t *testing.T, b []byte) map[string]string {
	out := map[string]string{}
	for len(b) > 0 {
		nl := strings.IndexByte(string(b), '\n')
		if nl < 0 {
			t.Fatalf("entry ends without a newline: %q", b)
		}
		line := string(b[:nl])
		if k, v, ok := strings.Cut(line, "="); ok {
			out[k] = v
			b = b[nl+1:]
			continue
		}
		size := binary.LittleEndian.Uint64(b[nl+1 : nl+9])
		out[line] = string(b[nl+9 : nl+9+int(size)])
		if b[nl+9+int(size)] != '\n' {
			t.Fatalf("binary field %s not closed by a newline", line)
		}
		b = b[nl+10+int(size):]
	}
	return out
}

// TestJournalNativeProtocol: each log line is one journald entry with its
// priority, identifier, text and one field per attribute; a value with a
// newline uses the length form; an entry larger than a datagram goes as a
// sealed memfd.
func TestJournalNativeProtocol(t *testing.T) {
	jd, path := newJournald(t)
	w, err := newJournalWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	log := New(w, 0, nil)
	log.Warn("service.down", "service", "proxy", "tail", "line one\nline two", "exit_code", 3)
	e := jd.next()
	for k, v := range map[string]string{"PRIORITY": "4", "SYSLOG_IDENTIFIER": "svc-ctl", "SVCCTL_EVENT": "service.down",
		"SVCCTL_SERVICE": "proxy", "SVCCTL_TAIL": "line one\nline two", "SVCCTL_EXIT_CODE": "3"} {
		if e[k] != v {
			t.Errorf("%s = %q, want %q", k, e[k], v)
		}
	}
	if !strings.HasPrefix(e["MESSAGE"], "service.down pid=") || !strings.Contains(e["MESSAGE"], "service=proxy") {
		t.Errorf("MESSAGE = %q", e["MESSAGE"])
	}
	big := strings.Repeat("x", 300<<10) // past the kernel's datagram limit
	log.Info("job.output", "tail", big)
	e = jd.next()
	if e["SVCCTL_TAIL"] != big || e["PRIORITY"] != "6" {
		t.Fatalf("big entry: %d bytes of tail, priority %q", len(e["SVCCTL_TAIL"]), e["PRIORITY"])
	}
}

// TestJournalUnavailable: no journald here is an error at open, which the
// agent names through its other destinations.
func TestJournalUnavailable(t *testing.T) {
	if _, err := newJournalWriter(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Fatal("opened a socket that does not exist")
	}
}

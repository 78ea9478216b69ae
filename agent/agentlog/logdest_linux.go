package agentlog

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// journalSocket is journald's native socket.
const journalSocket = "/run/systemd/journal/socket"

func openJournal() (*journalWriter, error) { return newJournalWriter(journalSocket) }

func openEventLog() (*journalWriter, error) {
	return nil, errors.New("the Windows Event Log is not on this OS")
}

// journalWriter sends each line to journald in its native protocol
// (systemd.journal-fields(7), "native protocol"): one datagram of
// FIELD=value lines (a value with a newline as FIELD, a 64-bit
// little-endian length, the bytes), and an entry too big for a datagram in
// a sealed memfd whose descriptor is sent instead.
type journalWriter struct {
	mu sync.Mutex
	fd int
	to *unix.SockaddrUnix
}

// newJournalWriter opens a datagram socket of its own (unconnected: the
// memfd form needs sendmsg with an address) and checks that journald
// answers at path.
func newJournalWriter(path string) (*journalWriter, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("socket: %w", err)
	}
	j := &journalWriter{fd: fd, to: &unix.SockaddrUnix{Name: path}}
	// An empty datagram is an entry journald ignores: it proves the socket.
	if err := unix.Sendmsg(fd, nil, nil, j.to, 0); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("journald's socket %s: %w (is systemd-journald running?)", path, err)
	}
	return j, nil
}

func (j *journalWriter) Write(p []byte) (int, error) {
	l, err := parseLogLine(p)
	if err != nil {
		l = logLine{Level: "INFO", Msg: strings.TrimSpace(string(p))}
	}
	entry := journalEntry(l)
	j.mu.Lock()
	defer j.mu.Unlock()
	err = unix.Sendmsg(j.fd, entry, nil, j.to, 0)
	if errors.Is(err, unix.EMSGSIZE) || errors.Is(err, unix.ENOBUFS) {
		err = j.sendMemfd(entry)
	}
	if err != nil {
		return 0, fmt.Errorf("journald: %w", err)
	}
	return len(p), nil
}

// sendMemfd sends an entry too big for one datagram as journald takes it:
// a memfd, sealed so it cannot change after journald looked, passed alone.
func (j *journalWriter) sendMemfd(entry []byte) error {
	fd, err := unix.MemfdCreate("svc-ctl-journal", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return fmt.Errorf("memfd: %w", err)
	}
	defer unix.Close(fd)
	for b := entry; len(b) > 0; {
		n, err := unix.Write(fd, b)
		if err != nil {
			return fmt.Errorf("memfd: %w", err)
		}
		b = b[n:]
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, unix.F_SEAL_SHRINK|unix.F_SEAL_GROW|unix.F_SEAL_WRITE|unix.F_SEAL_SEAL); err != nil {
		return fmt.Errorf("memfd seal: %w", err)
	}
	return unix.Sendmsg(j.fd, nil, unix.UnixRights(fd), j.to, 0)
}

func (j *journalWriter) Close() error { return unix.Close(j.fd) }

// journalEntry is a line as journald fields: MESSAGE (the line as text),
// PRIORITY, SYSLOG_IDENTIFIER, SVCCTL_EVENT and one SVCCTL_<KEY> per field.
func journalEntry(l logLine) []byte {
	var b []byte
	add := func(k, v string) {
		if strings.ContainsRune(v, '\n') {
			b = append(b, k...)
			b = append(b, '\n')
			var n [8]byte
			for i := range 8 {
				n[i] = byte(uint64(len(v)) >> (8 * i))
			}
			b = append(b, n[:]...)
			b = append(b, v...)
			b = append(b, '\n')
			return
		}
		b = append(b, k...)
		b = append(b, '=')
		b = append(b, v...)
		b = append(b, '\n')
	}
	add("MESSAGE", l.text())
	add("PRIORITY", journalPriority(l.Level))
	add("SYSLOG_IDENTIFIER", "svc-ctl")
	add("SVCCTL_EVENT", l.Msg)
	for _, a := range l.Attrs {
		if k := journalField(a.Key); k != "" {
			add(k, a.Text)
		}
	}
	return b
}

// journalPriority is syslog's level of a slog level.
func journalPriority(level string) string {
	switch {
	case strings.HasPrefix(level, "ERROR"):
		return "3"
	case strings.HasPrefix(level, "WARN"):
		return "4"
	case strings.HasPrefix(level, "DEBUG"):
		return "7"
	}
	return "6"
}

// journalField is SVCCTL_ and the key in journald's alphabet (A-Z, 0-9,
// _), at most 64 bytes; "" for a key that has nothing left.
func journalField(key string) string {
	var b strings.Builder
	b.WriteString("SVCCTL_")
	for _, r := range strings.ToUpper(key) {
		switch {
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := b.String()
	if s == "SVCCTL_" || strings.Trim(s[len("SVCCTL_"):], "_") == "" {
		return ""
	}
	return s[:min(len(s), 64)]
}

package proc

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
)

// listens reads the LISTEN rows of pid's network namespace
// (/proc/PID/net/tcp, tcp6) for port, then pid's descriptors for one of
// those sockets: the rows of other states (thousands of TIME_WAIT on a
// busy host) are skipped at their first fields, unlike a full parse of
// every connection.
func listens(pid int32, port uint32) bool {
	base := procRoot + "/" + strconv.Itoa(int(pid))
	inodes := map[string]bool{}
	want := strings.ToUpper(strconv.FormatUint(uint64(port), 16))
	for len(want) < 4 {
		want = "0" + want
	}
	for _, table := range []string{"/net/tcp", "/net/tcp6"} {
		f, err := os.Open(base + table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 64<<10)
		for sc.Scan() {
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
			fs := bytes.Fields(sc.Bytes())
			if len(fs) < 10 || string(fs[3]) != "0A" { // 0A: TCP_LISTEN
				continue
			}
			local := fs[1]
			if i := bytes.LastIndexByte(local, ':'); i >= 0 && string(local[i+1:]) == want {
				inodes[string(fs[9])] = true
			}
		}
		f.Close()
	}
	if len(inodes) == 0 {
		return false
	}
	d, err := os.Open(base + "/fd")
	if err != nil {
		return false
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	for _, n := range names {
		l, err := os.Readlink(base + "/fd/" + n)
		if err != nil || !strings.HasPrefix(l, "socket:[") {
			continue
		}
		if inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] {
			return true
		}
	}
	return false
}

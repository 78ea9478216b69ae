// Command memfloor measures the resident-memory floor of the stack the agent
// is built on: a Go program that keeps one modernc.org/sqlite
// file open (WAL, synchronous=FULL) and once a second makes one HTTP GET and
// inserts one row — a watchdog with nothing else. It starts that program as
// a child of itself, serves the GET from here on 127.0.0.1, and after -idle
// prints the child's VmRSS, RssAnon and RssFile as ps and top read them
// (Linux /proc).
//
// The agent's own benches run this program beside the agent, in the same
// invocation, and print the agent's figures as ratios of its
// (`go run ./bench/agent-idle -scenario steady`, `go run ./bench/peers
// -scenario steady`): they start it with -child and -every (the cadence of
// the GET and the insert, as the agent's interval).
//
//	go run ./bench/memfloor [-idle 60s] [-trials 3]
package main

import (
	"bufio"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	_ "modernc.org/sqlite"
)

func main() {
	child := flag.Bool("child", false, "run the floor program itself (used by the parent)")
	dbPath := flag.String("db", "", "with -child: the SQLite file")
	url := flag.String("url", "", "with -child: the URL to GET once a second")
	every := flag.Duration("every", time.Second, "with -child: how often to GET and insert")
	idle := flag.Duration("idle", 60*time.Second, "how long the floor program runs before its memory is read")
	trials := flag.Int("trials", 3, "how many times")
	flag.Parse()
	if *child {
		runFloor(*dbPath, *url, *every)
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	self, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	var rss, anon, file []int
	for i := 0; i < *trials; i++ {
		dir, err := os.MkdirTemp("", "memfloor-")
		if err != nil {
			log.Fatal(err)
		}
		cmd := exec.Command(self, "-child", "-db", filepath.Join(dir, "floor.db"), "-url", "http://"+ln.Addr().String()+"/health")
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			log.Fatal(err)
		}
		time.Sleep(*idle)
		m, err := memOf(cmd.Process.Pid)
		cmd.Process.Kill()
		cmd.Wait()
		os.RemoveAll(dir)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("trial %d: VmRSS %.1f MiB = RssAnon %.1f + RssFile %.1f\n", i+1, mib(m["VmRSS"]), mib(m["RssAnon"]), mib(m["RssFile"]))
		rss, anon, file = append(rss, m["VmRSS"]), append(anon, m["RssAnon"]), append(file, m["RssFile"])
	}
	fmt.Printf("floor (Go + modernc.org/sqlite + net/http, 1 GET and 1 insert a second), %d trials of %s: VmRSS %s MiB, RssAnon %s, RssFile %s\n",
		*trials, *idle, summary(rss), summary(anon), summary(file))
}

// runFloor is the floor program: every `every`, one GET and one insert.
func runFloor(dbPath, url string, every time.Duration) {
	db, err := sql.Open("sqlite", "file:"+dbPath+"?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)")
	if err != nil {
		log.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS run (at INTEGER, status INTEGER)`); err != nil {
		log.Fatal(err)
	}
	for range time.Tick(every) {
		status := 0
		if resp, err := http.Get(url); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			status = resp.StatusCode
		}
		if _, err := db.Exec(`INSERT INTO run VALUES (?, ?)`, time.Now().UnixMilli(), status); err != nil {
			log.Fatal(err)
		}
	}
}

// memOf reads the kB fields of /proc/PID/status.
func memOf(pid int) (map[string]int, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, fmt.Errorf("read the floor program's memory (Linux only): %w", err)
	}
	defer f.Close()
	m := map[string]int{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		k, v, ok := strings.Cut(s.Text(), ":")
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB")); err == nil {
			m[k] = n
		}
	}
	return m, s.Err()
}

func mib(kb int) float64 { return float64(kb) / 1024 }

// summary is "median (min–max)" in MiB.
func summary(kb []int) string {
	s := append([]int(nil), kb...)
	sort.Ints(s)
	return fmt.Sprintf("%.1f (%.1f–%.1f)", mib(s[len(s)/2]), mib(s[0]), mib(s[len(s)-1]))
}

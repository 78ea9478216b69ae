package testsvc

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// holders counts the /control/hold clients connected now.
type holders struct {
	mu sync.Mutex
	n  int
}

// serve answers the headers at once, then holds the connection open until
// the client leaves (a long request, a connected client).
func (h *holders) serve(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.n++
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.n--
		h.mu.Unlock()
	}()
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

func (h *holders) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n
}

// runWorker is one worker: it holds mb MiB and grows when its server says
// so ("grow N" lines on its stdin, a pipe the server holds); with follow it
// ends when its server does (the pipe closes), else it runs until killed.
func runWorker(mb int, follow bool) int {
	hold(mb)
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		if n, ok := strings.CutPrefix(sc.Text(), "grow "); ok {
			if v, err := strconv.Atoi(n); err == nil {
				hold(v)
			}
		}
	}
	if follow {
		return 0
	}
	for {
		time.Sleep(time.Hour)
	}
}

// hold makes this process hold mb MiB, resident (every page written).
func hold(mb int) {
	for len(grown)*4 < mb {
		b := make([]byte, 4<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		grown = append(grown, b)
	}
	fmt.Printf("testsvc: worker %d holds %d MiB\n", os.Getpid(), len(grown)*4)
}

// growWorker tells the first worker to grow to ?mb= MiB.
func growWorker(w http.ResponseWriter, r *http.Request) {
	mb, err := strconv.Atoi(r.URL.Query().Get("mb"))
	if err != nil || mb < 1 || len(keep) == 0 {
		http.Error(w, "bad mb, or no worker", http.StatusBadRequest)
		return
	}
	fmt.Fprintf(keep[0], "grow %d\n", mb)
	io.WriteString(w, "ok\n")
}

// checkURL is a health command: 0 when url answers 200.
func checkURL(url string) int {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return 1
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 1
	}
	return 0
}

// keep holds the workers' pipes open (and writes to them).
var keep []io.WriteCloser

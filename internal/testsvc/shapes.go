package testsvc

import (
	"net/http"
	"os"
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

// runWorker is one worker: it holds mb MiB, and with follow ends when its
// server does (its stdin, a pipe the server holds, closes); else it runs
// until killed.
func runWorker(mb int, follow bool) int {
	if mb > 0 {
		go growTo(mb)
	}
	if follow {
		buf := make([]byte, 1)
		for {
			if _, err := os.Stdin.Read(buf); err != nil {
				return 0
			}
		}
	}
	for {
		time.Sleep(time.Hour)
	}
}

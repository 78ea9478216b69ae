package ledgergen

import (
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"svcctl/runtrace"
)

// TestFillCoversEverySlot: every job gets exactly one row per slot, across
// batch boundaries, in a file the store opens and reads.
func TestFillCoversEverySlot(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "svc-ctl.db")
	from := time.Date(2026, 3, 1, 0, 0, 30, 0, time.UTC)
	slots := Minutes(from, from.Add(90*time.Minute))
	if len(slots) != 90 || !slots[0].Equal(from.Truncate(time.Minute).Add(time.Minute)) {
		t.Fatalf("Minutes gave %d slots from %s; want 90 whole minutes after %s", len(slots), slots[0], from)
	}
	jobs := []string{"job:a", "job:b", "job:c"}
	n, err := Fill(ctx, path, Spec{Jobs: jobs, Slots: slots, Batch: 7})
	if err != nil || n != 270 {
		t.Fatalf("Fill = %d, %v; want 270 rows", n, err)
	}
	st, err := runtrace.Open(path, runtrace.Options{ReadOnly: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, j := range jobs {
		got, err := st.ScheduledSlots(ctx, j, slots[0], slots[len(slots)-1])
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(got, slots, time.Time.Equal) {
			t.Fatalf("%s: %d slots covered, want all %d", j, len(got), len(slots))
		}
	}
	if c, err := st.Count(ctx, runtrace.Filter{Outcome: runtrace.OutcomeFailed}); err != nil || c == 0 {
		t.Fatalf("failed rows = %d, %v; the mix must include failures", c, err)
	}
}

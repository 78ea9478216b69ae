package runtrace

import (
	"context"
	"database/sql"
)

// scanner is one row to read: *sql.Rows, *sql.Row, or a wrapper that
// reads an extra column (seqScanner, claimScanner).
type scanner interface{ Scan(dest ...any) error }

// queryer is what a read (*sql.DB) and a write transaction (*sql.Tx) share.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// scanRows runs query and returns its rows as scan reads each: the one loop
// over rows of the package, so none forgets to close them (they are closed
// before it returns, which lets a transaction write right after it) or to
// look at the error that ended the iteration.
func scanRows[T any](ctx context.Context, q queryer, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, rows.Close()
}

// scanValue reads a row of one column.
func scanValue[T any](sc scanner) (T, error) {
	var v T
	err := sc.Scan(&v)
	return v, err
}

// keyCount is a row of a GROUP BY: a key and its count.
type keyCount struct {
	key string
	n   int
}

func scanKeyCount(sc scanner) (keyCount, error) {
	var k keyCount
	err := sc.Scan(&k.key, &k.n)
	return k, err
}

// countsByKey reads a GROUP BY of (key, count) rows into a map.
func countsByKey(ctx context.Context, q queryer, query string, args ...any) (map[string]int, error) {
	kcs, err := scanRows(ctx, q, scanKeyCount, query, args...)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int, len(kcs))
	for _, k := range kcs {
		out[k.key] = k.n
	}
	return out, nil
}

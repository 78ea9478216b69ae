//go:build !unix

package child

func startOrphan() int { return 2 }

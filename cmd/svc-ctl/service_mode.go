package main

import "context"

// detectMode and runAsService are the seam to the OS service manager; the
// install package replaces them once it lands.
func detectMode() string { return "foreground" }

func runAsService(ctx context.Context, run func(ctx context.Context) error) error { return run(ctx) }

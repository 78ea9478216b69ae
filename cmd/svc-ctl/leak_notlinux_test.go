//go:build !linux

package main

// servicesOf finds leaked services on Linux only (it reads /proc).
func servicesOf(addrs []string) map[int]string { return nil }

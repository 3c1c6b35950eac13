//go:build shout

package main

const mode = "shout"

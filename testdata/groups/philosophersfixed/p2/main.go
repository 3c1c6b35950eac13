// Command p2 is philosopher 1 of three (package phil).
package main

import "example.com/groups/philosophers/phil"

func main() { phil.Run(1, 3, true) }

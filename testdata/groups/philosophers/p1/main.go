// Command p1 is philosopher 0 of three (package phil).
package main

import "example.com/groups/philosophers/phil"

func main() { phil.Run(0, 3, false) }

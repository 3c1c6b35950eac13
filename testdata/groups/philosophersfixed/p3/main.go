// Command p3 is philosopher 2 of three (package phil).
package main

import "example.com/groups/philosophers/phil"

func main() { phil.Run(2, 3, true) }

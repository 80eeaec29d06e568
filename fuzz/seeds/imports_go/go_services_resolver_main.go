package main

import . "example.com/platform/lib/geo"

func main() { _ = Distance(3, 4) }

package main

import (
	"fmt"
	geo "example.com/platform/lib/geo"
	_ "golang.org/x/net/http2"
	// "example.com/platform/services/resolver" is commented out, not an import
)

func main() { fmt.Println(geo.Distance(1, 2)) }

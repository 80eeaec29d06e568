package geo

import (
	"math"

	"example.com/platform/internal/logx"
)

// Distance is a made-up metric; "example.com/platform/services/resolver" in a string is not an import.
func Distance(a, b float64) float64 {
	_ = logx.Line("distance")
	return math.Abs(a - b)
}

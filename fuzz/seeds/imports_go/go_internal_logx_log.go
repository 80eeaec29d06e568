package logx

import "fmt"

// Line formats one log line.
func Line(msg string) string { return fmt.Sprintf("[mesh] %s", msg) }

// Command electbench benchmarks and chaos-tests leader-election algorithms.
package main

import "os"

func main() { os.Exit(Main()) }

package external_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

// The test binary doubles as a node program: run with the arguments
// "node-mode MODE" it speaks NODE-PROTOCOL.md on its standard input and
// output instead of running tests. MODE "cr" is Chang-Roberts; "reuse" is
// Chang-Roberts kept across trials (reuse.go); "sleepinit" and "spininit"
// never answer init, blocked or computing; "starved" is Chang-Roberts
// whose first "elect" computes starvedCPU while starved of the CPU (beside
// "hog", which only computes), "sleepy" one that sleeps sleepyFor in it;
// the others misbehave in one way each, at the node's first "elect".

func init() {
	if len(os.Args) == 3 && os.Args[1] == "node-mode" {
		os.Exit(testNode(os.Args[2]))
	}
}

type line struct {
	Src  string         `json:"src"`
	Dest string         `json:"dest"`
	Body map[string]any `json:"body"`
}

func testNode(mode string) int {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	var self, succ string
	var rank float64
	participating := false
	emit := func(dest string, body map[string]any) {
		b, _ := json.Marshal(line{Src: self, Dest: dest, Body: body})
		out.Write(b)
		out.WriteByte('\n')
	}
	done := func() {
		emit("eb", map[string]any{"type": "done"})
		out.Flush()
	}
	switch mode {
	case "noop":
		return noopNode(in, out)
	case "reuse":
		return reuseNode(in, out)
	case "hog":
		return hog()
	case "sleepinit":
		time.Sleep(time.Hour)
	case "spininit":
		for start := time.Now(); time.Since(start) < time.Hour; {
		}
	}
	for in.Scan() {
		var l line
		if err := json.Unmarshal(in.Bytes(), &l); err != nil {
			fmt.Fprintln(os.Stderr, "bad input:", err)
			return 2
		}
		b := l.Body
		switch {
		case b["type"] == "init":
			self = b["node_id"].(string)
			rank = b["rank"].(float64)
			succ = b["peers"].([]any)[0].(map[string]any)["node"].(string)
			emit("eb", map[string]any{"type": "init_ok", "in_reply_to": 1})
			out.Flush()
			continue
		case b["type"] == "elect":
			switch mode {
			case "garbage":
				out.WriteString("this is not json\n")
				out.Flush()
				continue
			case "exit":
				fmt.Fprintln(os.Stderr, "about to fail")
				fmt.Fprintln(os.Stderr, "boom: cannot elect")
				out.Flush()
				return 3
			case "hang":
				out.Flush()
				time.Sleep(time.Hour)
			case "starved":
				starve(starvedCPU)
			case "sleepy":
				time.Sleep(sleepyFor)
			case "badsrc":
				out.WriteString(`{"src":"n99","dest":"eb","body":{"type":"done"}}` + "\n")
				out.Flush()
				continue
			case "baddest":
				emit("n77", map[string]any{"type": "ELECTION", "rank": rank})
				done()
				continue
			case "badtimer":
				emit("eb", map[string]any{"type": "set_timer", "timer": "T1", "ms": -5})
				done()
				continue
			case "badaction":
				emit("eb", map[string]any{"type": "teleport"})
				done()
				continue
			case "longline":
				emit("eb", map[string]any{"type": "log", "text": strings.Repeat("x", 1<<20+10)})
				done()
				continue
			case "timers":
				emit("eb", map[string]any{"type": "set_timer", "timer": "t-1", "ms": 2.5})
				emit("eb", map[string]any{"type": "set_timer", "timer": "gone", "ms": 1})
				emit("eb", map[string]any{"type": "cancel_timer", "timer": "gone"})
				emit(succ, map[string]any{"type": "PING"})
				done()
				continue
			}
			participating = true
			emit(succ, map[string]any{"type": "ELECTION", "rank": rank, "node": self})
		case b["type"] == "timeout":
			emit("eb", map[string]any{"type": "log", "text": "timer " + b["timer"].(string)})
			emit("eb", map[string]any{"type": "leader", "leader": self})
		case b["type"] == "ELECTED":
			participating = false
			if b["rank"].(float64) != rank {
				emit("eb", map[string]any{"type": "leader", "leader": b["node"]})
				emit(succ, b)
			}
		case b["type"] == "ELECTION":
			r := b["rank"].(float64)
			switch {
			case r == rank:
				emit("eb", map[string]any{"type": "leader", "leader": self})
				emit(succ, map[string]any{"type": "ELECTED", "rank": rank, "node": self})
			case r > rank:
				participating = true
				emit(succ, b)
			case !participating:
				participating = true
				emit(succ, map[string]any{"type": "ELECTION", "rank": rank, "node": self})
			}
		}
		done()
	}
	return 0
}

// noopNode answers init and ends every other step at once, decoding
// nothing it does not need: the cheapest program that speaks the protocol,
// against which the adapter's own cost is measured.
func noopNode(in *bufio.Scanner, out *bufio.Writer) int {
	var self string
	for in.Scan() {
		b := in.Bytes()
		if self == "" {
			var l line
			if err := json.Unmarshal(b, &l); err != nil {
				return 2
			}
			self = l.Body["node_id"].(string)
			out.WriteString(`{"src":"` + self + `","dest":"eb","body":{"type":"init_ok"}}` + "\n")
		} else {
			out.WriteString(`{"src":"` + self + `","dest":"eb","body":{"type":"done"}}` + "\n")
		}
		out.Flush()
	}
	return 0
}

package external_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

// reuseNode is Chang-Roberts that declares reuse and keeps a message
// going round the ring once elected, so that every trial ends by its
// deadline with messages in flight. Each message carries the trial's
// "trial" parameter; a node given a message of another trial than its
// init's exits with status 4, which fails the trial (NODE-PROTOCOL.md,
// "Kept across trials": nothing of a trial reaches the next). Each init
// starts the node over.
func reuseNode(in *bufio.Scanner, out *bufio.Writer) int {
	type state struct {
		self, succ, trial string
		rank              float64
		participating     bool
	}
	var st state
	emit := func(dest string, body map[string]any) {
		b, _ := json.Marshal(line{Src: st.self, Dest: dest, Body: body})
		out.Write(b)
		out.WriteByte('\n')
	}
	for in.Scan() {
		var l line
		if err := json.Unmarshal(in.Bytes(), &l); err != nil {
			fmt.Fprintln(os.Stderr, "bad input:", err)
			return 2
		}
		b := l.Body
		if b["type"] == "init" {
			params, _ := b["params"].(map[string]any)
			trial, _ := params["trial"].(string)
			st = state{self: b["node_id"].(string), rank: b["rank"].(float64), trial: trial,
				succ: b["peers"].([]any)[0].(map[string]any)["node"].(string)}
			emit("eb", map[string]any{"type": "init_ok", "in_reply_to": 1, "reuse": true})
			out.Flush()
			continue
		}
		if l.Src != "eb" && b["trial"] != st.trial {
			fmt.Fprintf(os.Stderr, "a message of trial %v in trial %s\n", b["trial"], st.trial)
			return 4
		}
		msg := func(typ string, r float64) map[string]any {
			return map[string]any{"type": typ, "rank": r, "node": st.self, "trial": st.trial}
		}
		switch b["type"] {
		case "elect":
			st.participating = true
			emit(st.succ, msg("ELECTION", st.rank))
		case "PING":
			emit(st.succ, b)
		case "ELECTED":
			if b["rank"].(float64) != st.rank {
				emit("eb", map[string]any{"type": "leader", "leader": b["node"]})
				emit(st.succ, b)
			} else {
				emit(st.succ, msg("PING", st.rank))
			}
		case "ELECTION":
			switch r := b["rank"].(float64); {
			case r == st.rank:
				emit("eb", map[string]any{"type": "leader", "leader": st.self})
				emit(st.succ, msg("ELECTED", st.rank))
			case r > st.rank:
				st.participating = true
				emit(st.succ, b)
			case !st.participating:
				st.participating = true
				emit(st.succ, msg("ELECTION", st.rank))
			}
		}
		emit("eb", map[string]any{"type": "done"})
		out.Flush()
	}
	return 0
}

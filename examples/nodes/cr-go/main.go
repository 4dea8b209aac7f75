// Command cr-go is Chang & Roberts 1979 on a unidirectional ring
// (docs/ALGORITHMS.md, "chang-roberts") as an electbench node program,
// written against the protocol alone (docs/NODE-PROTOCOL.md), with the
// standard library only:
//
//	go build -o cr-go ./examples/nodes/cr-go
//	electbench run --node-cmd ./cr-go --topology ring --name cr-go
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

// envelope is one protocol line; the body stays raw until its type is
// known, so that a message is forwarded exactly as it came.
type envelope struct {
	Src  string          `json:"src"`
	Dest string          `json:"dest"`
	Body json.RawMessage `json:"body"`
}

type body struct {
	Type  string `json:"type"`
	MsgID int    `json:"msg_id"`
	// init
	NodeID string `json:"node_id"`
	Rank   int64  `json:"rank"`
	Peers  []struct {
		Node string `json:"node"`
	} `json:"peers"`
	// ELECTION and ELECTED
	Node string `json:"node"`
}

type election struct {
	Type string `json:"type"`
	Rank int64  `json:"rank"`
	Node string `json:"node"`
}

type node struct {
	out           *bufio.Writer
	self, succ    string
	rank          int64
	participating bool
}

func (n *node) emit(dest string, b any) {
	raw, err := json.Marshal(b)
	if err != nil {
		panic(err)
	}
	line, _ := json.Marshal(envelope{Src: n.self, Dest: dest, Body: raw})
	n.out.Write(line)
	n.out.WriteByte('\n')
}

func (n *node) action(typ string, fields map[string]any) {
	b := map[string]any{"type": typ}
	for k, v := range fields {
		b[k] = v
	}
	n.emit("eb", b)
}

// step handles one input line and ends the step.
func (n *node) step(e envelope, b body) {
	switch b.Type {
	case "init":
		// A fresh init is a new trial on this process (NODE-PROTOCOL.md,
		// "Kept across trials"): the node starts over, and says it can.
		*n = node{out: n.out, self: b.NodeID, rank: b.Rank, succ: b.Peers[0].Node}
		n.action("init_ok", map[string]any{"in_reply_to": b.MsgID, "reuse": true})
		return
	case "elect":
		n.participating = true
		n.emit(n.succ, election{"ELECTION", n.rank, n.self})
	case "ELECTED":
		n.participating = false
		if b.Rank != n.rank { // back at the leader, the run ends
			n.action("leader", map[string]any{"leader": b.Node})
			n.emit(n.succ, e.Body)
		}
	case "ELECTION":
		switch {
		case b.Rank == n.rank:
			n.action("leader", map[string]any{"leader": n.self})
			n.emit(n.succ, election{"ELECTED", n.rank, n.self})
		case b.Rank > n.rank:
			n.participating = true
			n.emit(n.succ, e.Body)
		case !n.participating:
			n.participating = true
			n.emit(n.succ, election{"ELECTION", n.rank, n.self})
		}
	}
	n.action("done", nil)
}

func main() {
	n := &node{out: bufio.NewWriter(os.Stdout)}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	for in.Scan() {
		var e envelope
		var b body
		if err := json.Unmarshal(in.Bytes(), &e); err != nil {
			fmt.Fprintf(os.Stderr, "cr-go: bad line: %v\n", err)
			os.Exit(2)
		}
		if err := json.Unmarshal(e.Body, &b); err != nil {
			fmt.Fprintf(os.Stderr, "cr-go: bad body: %v\n", err)
			os.Exit(2)
		}
		n.step(e, b)
		n.out.Flush()
	}
}

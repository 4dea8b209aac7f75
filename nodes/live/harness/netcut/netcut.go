//go:build linux

package netcut

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/google/nftables"
	"github.com/google/nftables/binaryutil"
	"github.com/google/nftables/expr"
	"golang.org/x/sys/unix"
)

// Prefix begins the name of every table a run makes; the run's process id
// follows it.
const Prefix = "electbench_"

// Table is one run's nftables table. It is not safe for concurrent use.
type Table struct {
	conn  *nftables.Conn
	table *nftables.Table
	cuts  *nftables.Chain // input hook: the drops
	pins  *nftables.Chain // postrouting nat: each member's source address
}

// ErrNoNetlink wraps a failure to reach nftables at all: no root (no
// CAP_NET_ADMIN) or a kernel without it.
var ErrNoNetlink = errors.New("nftables unavailable (needs root and a kernel with nf_tables)")

// Open creates the table of the run with this process id and owner token
// (os.Getpid() and owner.Token() for this run), named by both so that a
// later clean-up removes it only once that process is provably dead
// (RemoveDead), even from another PID namespace sharing this network
// namespace; it replaces one a dead run of the same name left.
func Open(pid int, token string) (*Table, error) { return open(pid, token) }

// OpenIn is Open inside the network namespace nsfd names (a --netns
// host's): the table is that namespace's, its input hook that host's, and
// it goes with the namespace if Close never comes.
func OpenIn(nsfd, pid int, token string) (*Table, error) {
	return open(pid, token, nftables.WithNetNSFd(nsfd))
}

func open(pid int, token string, opts ...nftables.ConnOption) (*Table, error) {
	conn, err := nftables.New(opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoNetlink, err)
	}
	t := &Table{conn: conn, table: &nftables.Table{Family: nftables.TableFamilyIPv4, Name: OwnedBy(pid) + token}}
	// Adding then deleting the table first removes a stale one of the
	// same name in the same transaction, rules and all.
	conn.AddTable(t.table)
	conn.DelTable(t.table)
	conn.AddTable(t.table)
	accept := nftables.ChainPolicyAccept
	t.cuts = conn.AddChain(&nftables.Chain{Name: "cuts", Table: t.table, Type: nftables.ChainTypeFilter,
		Hooknum: nftables.ChainHookInput, Priority: nftables.ChainPriorityFilter, Policy: &accept})
	t.pins = conn.AddChain(&nftables.Chain{Name: "pins", Table: t.table, Type: nftables.ChainTypeNAT,
		Hooknum: nftables.ChainHookPostrouting, Priority: nftables.ChainPriorityNATSource, Policy: &accept})
	if err := conn.Flush(); err != nil {
		return nil, fmt.Errorf("%w: creating table %s: %w", ErrNoNetlink, t.table.Name, err)
	}
	return t, nil
}

// Name is the table's name.
func (t *Table) Name() string { return t.table.Name }

// Pin makes every loopback packet sent by a socket of uid leave from addr.
func (t *Table) Pin(uid uint32, addr netip.Addr) error {
	if !addr.Is4() {
		return fmt.Errorf("pin uid %d: %v is not an IPv4 address", uid, addr)
	}
	a := addr.As4()
	t.conn.AddRule(&nftables.Rule{Table: t.table, Chain: t.pins, UserData: []byte("pin " + addr.String()), Exprs: []expr.Any{
		&expr.Meta{Key: expr.MetaKeyOIFNAME, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: ifname("lo")},
		&expr.Meta{Key: expr.MetaKeySKUID, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: binaryutil.NativeEndian.PutUint32(uid)},
		&expr.Immediate{Register: 1, Data: a[:]},
		&expr.NAT{Type: expr.NATTypeSourceNAT, Family: unix.NFPROTO_IPV4, RegAddrMin: 1},
	}})
	if err := t.conn.Flush(); err != nil {
		return fmt.Errorf("pin uid %d to %v in table %s: %w", uid, addr, t.table.Name, err)
	}
	return nil
}

// Exempt accepts every TCP packet to addr (its address, or any if
// unspecified, and its port) before any cut or loss can drop it: an
// agent that cuts its host off keeps its controller's connection, which
// a cut from the controller's address would otherwise stall. Heal keeps
// it; HealAll and Close remove it with the rest.
func (t *Table) Exempt(addr netip.AddrPort) error {
	exprs := []expr.Any{
		&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{unix.IPPROTO_TCP}},
		// tcp dport (offset 2 of the transport header)
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseTransportHeader, Offset: 2, Len: 2},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: binaryutil.BigEndian.PutUint16(addr.Port())},
	}
	if a := addr.Addr(); !a.IsUnspecified() {
		if !a.Is4() {
			return fmt.Errorf("exempt %v: not an IPv4 address", addr)
		}
		d := a.As4()
		exprs = append(exprs,
			&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: 16, Len: 4},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: d[:]})
	}
	exprs = append(exprs, &expr.Verdict{Kind: expr.VerdictAccept})
	// Inserted at the chain's head: rules are tried in order, and an
	// accept after a drop would come too late.
	t.conn.InsertRule(&nftables.Rule{Table: t.table, Chain: t.cuts, UserData: []byte("exempt " + addr.String()), Exprs: exprs})
	if err := t.conn.Flush(); err != nil {
		return fmt.Errorf("exempt %v in table %s: %w", addr, t.table.Name, err)
	}
	return nil
}

// Cut drops every packet from → to.
func (t *Table) Cut(from, to netip.Addr) error { return t.Loss(from, to, 100) }

// Loss drops percent% of the packets from → to, each independently
// (numgen random mod 100 < percent), replacing what the link had.
// Percent 0 heals it.
func (t *Table) Loss(from, to netip.Addr, percent int) error {
	if !from.Is4() || !to.Is4() || percent < 0 || percent > 100 {
		return fmt.Errorf("loss %v -> %v %d%%: want two IPv4 addresses and 0..100", from, to, percent)
	}
	if err := t.Heal(from, to); err != nil || percent == 0 {
		return err
	}
	f, d := from.As4(), to.As4()
	exprs := []expr.Any{
		// ip saddr (offset 12) and ip daddr (offset 16)
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: 12, Len: 4},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: f[:]},
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: 16, Len: 4},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: d[:]},
	}
	if percent < 100 {
		// cmp compares bytes, so the number is made big-endian first,
		// as nft itself does for a range on numgen.
		exprs = append(exprs,
			&expr.Numgen{Register: 1, Modulus: 100, Type: unix.NFT_NG_RANDOM},
			&expr.Byteorder{SourceRegister: 1, DestRegister: 1, Op: expr.ByteorderHton, Len: 4, Size: 4},
			&expr.Cmp{Op: expr.CmpOpLt, Register: 1, Data: binaryutil.BigEndian.PutUint32(uint32(percent))})
	}
	exprs = append(exprs, &expr.Verdict{Kind: expr.VerdictDrop})
	t.conn.AddRule(&nftables.Rule{Table: t.table, Chain: t.cuts, UserData: linkKey(from, to), Exprs: exprs})
	if err := t.conn.Flush(); err != nil {
		return fmt.Errorf("loss %v -> %v %d%% in table %s: %w", from, to, percent, t.table.Name, err)
	}
	return nil
}

// Heal removes the rules on from → to.
func (t *Table) Heal(from, to netip.Addr) error {
	rules, err := t.conn.GetRules(t.table, t.cuts)
	if err != nil {
		return fmt.Errorf("heal %v -> %v: listing table %s: %w", from, to, t.table.Name, err)
	}
	key := linkKey(from, to)
	for _, r := range rules {
		if bytes.Equal(r.UserData, key) {
			if err := t.conn.DelRule(r); err != nil {
				return fmt.Errorf("heal %v -> %v: %w", from, to, err)
			}
		}
	}
	if err := t.conn.Flush(); err != nil {
		return fmt.Errorf("heal %v -> %v in table %s: %w", from, to, t.table.Name, err)
	}
	return nil
}

// HealAll removes every cut and loss, keeping the pins.
func (t *Table) HealAll() error {
	t.conn.FlushChain(t.cuts)
	if err := t.conn.Flush(); err != nil {
		return fmt.Errorf("healing table %s: %w", t.table.Name, err)
	}
	return nil
}

// Close deletes the table and every rule in it.
func (t *Table) Close() error {
	t.conn.DelTable(t.table)
	if err := t.conn.Flush(); err != nil {
		return fmt.Errorf("deleting table %s: %w", t.table.Name, err)
	}
	return nil
}

// OwnedBy is how the names of the tables the process pid made begin.
func OwnedBy(pid int) string { return Prefix + strconv.Itoa(pid) + "_" }

// RemoveDead deletes the tables of runs whose process is provably gone
// (dead reports true for the pid and token in the name) and returns their
// names. A table that names no token proves nothing and is kept.
func RemoveDead(dead func(pid int, token string) bool) ([]string, error) {
	conn, err := nftables.New()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoNetlink, err)
	}
	tables, err := conn.ListTablesOfFamily(nftables.TableFamilyIPv4)
	if err != nil {
		return nil, fmt.Errorf("%w: listing tables: %w", ErrNoNetlink, err)
	}
	var removed []string
	var errs []error
	for _, tb := range tables {
		owner, token, ok := strings.Cut(strings.TrimPrefix(tb.Name, Prefix), "_")
		pid, err := strconv.Atoi(owner)
		if !strings.HasPrefix(tb.Name, Prefix) || !ok || err != nil || pid <= 0 || !dead(pid, token) {
			continue
		}
		// A table at a time: every run cleans up as it starts, so another
		// may delete the same dead table first, and in one batch of all
		// its deletion (ENOENT) failed the others too.
		conn.DelTable(tb)
		switch err := conn.Flush(); {
		case errors.Is(err, unix.ENOENT): // another clean-up's
		case err != nil:
			errs = append(errs, fmt.Errorf("deleting table %s: %w", tb.Name, err))
		default:
			removed = append(removed, tb.Name)
		}
	}
	return removed, errors.Join(errs...)
}

func linkKey(from, to netip.Addr) []byte { return []byte("cut " + from.String() + ">" + to.String()) }

// ifname is an interface name as the kernel compares it: padded with NULs
// to IFNAMSIZ.
func ifname(n string) []byte {
	b := make([]byte, unix.IFNAMSIZ)
	copy(b, n)
	return b
}

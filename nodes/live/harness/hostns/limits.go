package hostns

// MaxHosts is the most hosts a Set holds: one /24 of addresses, less the
// bridge's own and the network's and broadcast addresses.
const MaxHosts = 252

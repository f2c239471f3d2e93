package netguard

import (
	"encoding/binary"
	"io"
	"net"
)

// serveDNS answers DNS queries on conn (TCP framing, as a Go resolver uses over a
// net.Pipe) with one A record of ip for A questions and no record otherwise.
func serveDNS(conn net.Conn, ip net.IP) {
	defer conn.Close()
	for {
		var n uint16
		if err := binary.Read(conn, binary.BigEndian, &n); err != nil {
			return
		}
		q := make([]byte, n)
		if _, err := io.ReadFull(conn, q); err != nil || len(q) < 12 {
			return
		}
		end := 12
		for end < len(q) && q[end] != 0 {
			end += int(q[end]) + 1
		}
		end += 5 // the root label, QTYPE, QCLASS
		if end > len(q) {
			return
		}
		qtype := binary.BigEndian.Uint16(q[end-4:])
		resp := append([]byte{}, q[:end]...)
		resp[2], resp[3] = 0x81, 0x80 // response, recursion desired and available, no error
		binary.BigEndian.PutUint16(resp[6:], 0)
		binary.BigEndian.PutUint16(resp[8:], 0)
		binary.BigEndian.PutUint16(resp[10:], 0)
		if qtype == 1 {
			binary.BigEndian.PutUint16(resp[6:], 1)
			resp = append(resp, 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4)
			resp = append(resp, ip...)
		}
		var hdr [2]byte
		binary.BigEndian.PutUint16(hdr[:], uint16(len(resp)))
		if _, err := conn.Write(append(hdr[:], resp...)); err != nil {
			return
		}
	}
}

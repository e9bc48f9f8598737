-- SPDX-License-Identifier: BSD-3-Clause
--
-- pktstats_isl.lua: hands OpenKilda's ISL discovery packets (docs/isl.md) to Wireshark's own
-- LLDP dissector. OpenKilda carries an LLDPDU as the payload of UDP 61231 -> 61231 (discovery)
-- and 61231 -> 61232 (the copy the far switch sends back for the round trip); Wireshark only
-- looks for LLDP behind EtherType 0x88CC, so without this shim the payload stays "Data".
--
--   tshark -X lua_script:sw/tools/wireshark/pktstats_isl.lua -r capture.pcap -V -O lldp
--   tshark -X lua_script:sw/tools/wireshark/pktstats_isl.lua -r capture.pcap -T fields \
--          -e lldp.unknown_subtype -e lldp.unknown_subtype.content
--   (or copy the file into ~/.local/lib/wireshark/plugins/ to load it always)
--
-- Every TLV is then the LLDP dissector's: chassis ID, port ID, TTL, and OpenKilda's
-- organisation-specific TLVs (OUI 00:26:E1, which Wireshark names "Stanford University,
-- OpenFlow Group" and knows no subtypes of): lldp.orgtlv.oui, lldp.unknown_subtype (0 switch
-- ID, 1 controller timestamp, 2 ordinal, 3 token, 4 T0, 5 T1) and
-- lldp.unknown_subtype.content (the bytes after the subtype). This file adds no fields.
-- Wireshark tries a UDP datagram's lower port first, so a round trip (61231 -> 61232) reaches
-- LLDP through 61231; the 61232 registration serves datagrams where only the destination port
-- is OpenKilda's. Tested with tshark 4.0 by tb/wireshark/test_isl_dissector.py.

local DISCOVERY_PORT, ROUND_TRIP_PORT = 61231, 61232

local lldp = Dissector.get("lldp")
local udp_port = DissectorTable.get("udp.port")
udp_port:add(DISCOVERY_PORT, lldp)
udp_port:add(ROUND_TRIP_PORT, lldp)

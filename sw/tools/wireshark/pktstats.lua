-- SPDX-License-Identifier: BSD-3-Clause
--
-- pktstats.lua: Wireshark / tshark dissector for pktstats stat packets (docs/packet-format.md),
-- the UDP datagrams (port 27033 by default) in which the event-capture hardware reports the
-- arrivals, departures and drops of 8 output queues with absolute timestamps.
--
--   tshark -X lua_script:sw/tools/wireshark/pktstats.lua -r capture.pcap -V
--   tshark -X lua_script:sw/tools/wireshark/pktstats.lua -r capture.pcap -T fields \
--          -e pktstats.seq -e pktstats.event.type -e pktstats.event.time
--   wireshark -X lua_script:sw/tools/wireshark/pktstats.lua capture.pcap
--   (or copy the file into ~/.local/lib/wireshark/plugins/ to load it always)
--
-- docs/wireshark.md lists the fields. What this dissector does, and why:
--
--  * Format version 2 completely: header (M flag, resolution c, version, event types, sequence
--    number, the 8 queue sizes), timestamp events (2 slots), short events with their absolute
--    tick and time in ns and the reconstructed occupancy of their queue.
--  * Version 1 (the original NetFPGA format) too, as the C decoder reads it: its header has two
--    size words per queue (words, packets), its 19-bit field holds the low bits of the absolute
--    tick instead of a gap, and it carries no resolution (preference "v1_resolution", default
--    0, like the decoder's default). Preference "accept_v1" off makes it a bad version.
--  * Every rule is the production decoder's (sw/driver/src/decode.c), so that tshark and the
--    decoder agree field for field (tb/wireshark/test_dissector.py checks it on real and
--    hand-built captures): the same checks in the same order give the same verdict, named as
--    the decoder names it in the field pktstats.error (truncated, bad_version, bad_event_types,
--    partial_slot, no_events, first_not_timestamp, cut_timestamp), with an expert item. A
--    malformed packet is still dissected as far as it goes (Wireshark practice), but the
--    decoder counts none of its events: filter with `!pktstats.error` to count like it does.
--  * Ticks are modulo 2^62 and time_ns = (tick << c) * 8 modulo 2^64, as in the decoder. Lua
--    5.2 (Wireshark up to 4.2) has only doubles, exact to 2^53, so a tick is kept as two
--    numbers, hi (bits 61:32) and lo (bits 31:0), and carried by hand; UInt64 objects are
--    built only for the field values. Plain arithmetic (no bit32) keeps it valid in Lua 5.4.
--  * Frame-level checks (IPv4, UDP lengths, fragments) are Wireshark's own IP/UDP dissectors'
--    business. Wireshark hands a datagram to this dissector when either UDP port matches
--    (the decoder's stream filter looks at the destination port only).
--  * Wireshark's UDP dissector hands an empty datagram to no dissector: where the decoder says
--    "truncated" for one, tshark shows plain UDP (the one difference the test allows).
--  * Not done: sequence-number tracking across packets (lost, reordered); `pktstats decode`
--    does it. Speed: every tree item costs a few microseconds in Wireshark's Lua API, so this
--    dissects some 20,000-30,000 events per second (`make bench`); it is for looking at
--    packets, `pktstats decode` is for millions of events.
--  * Tested with tshark 4.0 (Lua 5.2); written to stay valid in Lua 5.4 (Wireshark 4.4+), not
--    tested there.

local pktstats = Proto("pktstats", "pktstats queue telemetry")

local DEFAULT_PORT = 27033
local V2_HEADER = 38 -- payload bytes before the first slot, version 2
local V1_HEADER = 70 -- version 1: 6 + 8 queues x 2 words x 4 bytes
local EVENT_TYPES = 3
local TWO32 = 4294967296 -- 2^32, written out: an integer in Lua 5.4, exact in 5.2
local TWO30 = 1073741824 -- 2^30: the timestamp's high part has 30 bits
local TWO19 = 524288 -- 2^19: the gap field

local TIMESTAMP, ARRIVAL, DEPARTURE, DROP = 0, 1, 2, 3
local event_names = { [0] = "Timestamp", [1] = "Arrival", [2] = "Departure", [3] = "Drop" }

-- Fields. Names are the filter names (docs/wireshark.md); "generated" ones are computed.
local f = {
	flags = ProtoField.uint8("pktstats.flags", "Flags", base.HEX),
	missed = ProtoField.bool("pktstats.missed", "Events missed (M)", 8, nil, 0x80),
	resolution = ProtoField.uint8("pktstats.resolution", "Resolution c", base.DEC, nil, 0x70),
	version = ProtoField.uint8("pktstats.version", "Version", base.DEC, nil, 0x0f),
	version1_reserved = ProtoField.uint8("pktstats.v1_reserved", "Reserved (version 1)",
		base.HEX, nil, 0xf0),
	tick_ns = ProtoField.uint32("pktstats.tick_ns", "Tick (ns)", base.DEC),
	event_types = ProtoField.uint8("pktstats.event_types", "Event types", base.DEC),
	seq = ProtoField.uint32("pktstats.seq", "Sequence number", base.DEC),
	queue_sizes = ProtoField.none("pktstats.queue_sizes", "Queue sizes"),
	queue_size = ProtoField.uint32("pktstats.queue_size", "Queue size (64-bit words)", base.DEC),
	queue_packets = ProtoField.uint32("pktstats.queue_packets", "Queue size (packets, version 1)",
		base.DEC),
	slots = ProtoField.uint32("pktstats.slots", "Slots", base.DEC),
	events = ProtoField.uint32("pktstats.events", "Short events", base.DEC),
	timestamps = ProtoField.uint32("pktstats.timestamps", "Timestamp events", base.DEC),
	start_tick = ProtoField.uint64("pktstats.start_tick", "Start tick", base.DEC),
	start_time = ProtoField.uint64("pktstats.start_time", "Start time (ns)", base.DEC),
	first_tick = ProtoField.uint64("pktstats.first_tick", "First event tick", base.DEC),
	last_tick = ProtoField.uint64("pktstats.last_tick", "Last event tick", base.DEC),
	error = ProtoField.string("pktstats.error", "Malformed"),

	event_list = ProtoField.none("pktstats.event_list", "Events"),
	timestamp = ProtoField.none("pktstats.timestamp", "Timestamp"),
	ts_tick = ProtoField.uint64("pktstats.timestamp.tick", "Tick", base.DEC),
	ts_time = ProtoField.uint64("pktstats.timestamp.time", "Time (ns)", base.DEC),

	event = ProtoField.uint32("pktstats.event", "Event", base.HEX),
	ev_type = ProtoField.uint32("pktstats.event.type", "Type", base.DEC, event_names, 0xc0000000),
	ev_queue = ProtoField.uint32("pktstats.event.queue", "Queue", base.DEC, nil, 0x38000000),
	ev_length = ProtoField.uint32("pktstats.event.length", "Length (64-bit words)", base.DEC,
		nil, 0x07f80000),
	ev_gap = ProtoField.uint32("pktstats.event.gap", "Gap (ticks)", base.DEC, nil, 0x0007ffff),
	ev_tick_low = ProtoField.uint32("pktstats.event.tick_low", "Tick bits 18:0 (version 1)",
		base.DEC, nil, 0x0007ffff),
	ev_tick = ProtoField.uint64("pktstats.event.tick", "Tick", base.DEC),
	ev_time = ProtoField.uint64("pktstats.event.time", "Time (ns)", base.DEC),
	ev_occupancy = ProtoField.int64("pktstats.event.occupancy", "Queue occupancy after (words)",
		base.DEC),
	ev_slot = ProtoField.uint32("pktstats.event.slot", "Slot", base.DEC),
}
local field_list = {}
for _, field in pairs(f) do
	field_list[#field_list + 1] = field
end
pktstats.fields = field_list

-- Expert items, one per decoder verdict (its pktstats_decode_strerror text), plus notes.
local MALFORMED, ERROR = expert.group.MALFORMED, expert.severity.ERROR
local ex = {
	truncated = ProtoExpert.new("pktstats.expert.truncated",
		"Payload shorter than the stat header", MALFORMED, ERROR),
	bad_version = ProtoExpert.new("pktstats.expert.bad_version",
		"Unsupported stat packet version", MALFORMED, ERROR),
	bad_event_types = ProtoExpert.new("pktstats.expert.bad_event_types",
		"Number of event types is not 3", MALFORMED, ERROR),
	partial_slot = ProtoExpert.new("pktstats.expert.partial_slot",
		"Truncated: event area is not a multiple of 4 bytes", MALFORMED, ERROR),
	no_events = ProtoExpert.new("pktstats.expert.no_events",
		"Packet holds no short event", MALFORMED, ERROR),
	first_not_timestamp = ProtoExpert.new("pktstats.expert.first_not_timestamp",
		"First event is not a timestamp: event before any timestamp", MALFORMED, ERROR),
	cut_timestamp = ProtoExpert.new("pktstats.expert.cut_timestamp",
		"Timestamp event cut in half (its first slot is the last slot)", MALFORMED, ERROR),
	missed = ProtoExpert.new("pktstats.expert.missed",
		"Events were lost after the previous packet (M flag)", expert.group.SEQUENCE,
		expert.severity.WARN),
	negative = ProtoExpert.new("pktstats.expert.negative_occupancy",
		"Reconstructed occupancy below zero: the packet is inconsistent", expert.group.PROTOCOL,
		expert.severity.WARN),
	inserted = ProtoExpert.new("pktstats.expert.timestamp_inserted",
		"Timestamp inside the packet (written before a gap of 2^19 ticks or more)",
		expert.group.SEQUENCE,
		expert.severity.CHAT),
}
pktstats.experts = { ex.truncated, ex.bad_version, ex.bad_event_types, ex.partial_slot,
	ex.no_events, ex.first_not_timestamp, ex.cut_timestamp, ex.missed, ex.negative, ex.inserted }

pktstats.prefs.udp_port = Pref.uint("UDP port", DEFAULT_PORT,
	"UDP port of stat packets (hardware register udp_destination_port; default 27033)")
pktstats.prefs.accept_v1 = Pref.bool("Decode version 1", true,
	"Decode version 1 (original NetFPGA) packets; otherwise they are a bad version")
pktstats.prefs.v1_resolution = Pref.uint("Version 1 resolution c", 0,
	"Resolution c (tick = 8 ns << c) of version 1 packets, which do not carry it (0..7)")

-- A tick (hi = bits 61:32, lo = bits 31:0) as UInt64 (64-bit fields take no Lua number).
local function tick64(hi, lo)
	return UInt64.new(lo, hi)
end

-- time_ns = (tick << c) * 8 mod 2^64, i.e. tick * 2^(c+3); each half stays below 2^42.
local function time64(hi, lo, scale)
	local low = lo * scale
	local carry = math.floor(low / TWO32)
	return UInt64.new(low - carry * TWO32, (hi * scale + carry) % TWO32)
end

-- The same time as text for labels: from a double while it is exact (below 2^53 ns, 104 days),
-- far cheaper than tostring() of a UInt64, which labels would otherwise call once per event.
local TWO53 = 9007199254740992
local function time_text(hi, lo, scale, time)
	local ns = (hi * TWO32 + lo) * scale
	if ns < TWO53 then
		return string.format("%.0f", ns)
	end
	return tostring(time)
end

-- Verdict: pktstats.error, the expert item, the Info column.
local function malformed(pinfo, tree, range, name)
	tree:add(f.error, range, name):set_generated()
	tree:add_proto_expert_info(ex[name])
	pinfo.cols.info:append(" [malformed: " .. name .. "]")
end

function pktstats.dissector(tvb, pinfo, root)
	local len = tvb:len()
	pinfo.cols.protocol = "PKTSTATS"
	pinfo.cols.info = "pktstats"
	local tree = root:add(pktstats, tvb())

	-- Header checks, in the decoder's order.
	if len < 1 then
		malformed(pinfo, tree, tvb(), "truncated")
		return len
	end
	local raw = tvb:raw(0, len) -- one string: string.byte is far cheaper than a TvbRange per slot
	local b0 = raw:byte(1)
	local version = b0 % 16
	local header, c
	if version == 2 then
		header = V2_HEADER
		c = math.floor(b0 / 16) % 8
	elseif version == 1 and pktstats.prefs.accept_v1 then
		header = V1_HEADER
		c = pktstats.prefs.v1_resolution % 8
	else
		tree:add(f.version, tvb(0, 1))
		pinfo.cols.info = "pktstats v" .. version
		malformed(pinfo, tree, tvb(0, 1), "bad_version")
		return len
	end
	local flags = tree:add(f.flags, tvb(0, 1))
	if version == 2 then
		flags:add(f.missed, tvb(0, 1))
		flags:add(f.resolution, tvb(0, 1))
	else
		flags:add(f.version1_reserved, tvb(0, 1))
	end
	flags:add(f.version, tvb(0, 1))
	pinfo.cols.info = "pktstats v" .. version
	if len < header then
		malformed(pinfo, tree, tvb(), "truncated")
		return len
	end
	tree:add(f.event_types, tvb(1, 1))
	if raw:byte(2) ~= EVENT_TYPES then
		malformed(pinfo, tree, tvb(1, 1), "bad_event_types")
		return len
	end
	local missed = version == 2 and b0 >= 128
	if version == 1 then
		-- From the preference. Wireshark masks and shifts a value given to a bitmask field as
		-- it does the packet's byte, so c goes in at its place in the byte.
		tree:add(f.resolution, tvb(0, 1), c * 16):set_generated()
	end
	tree:add(f.tick_ns, tvb(0, 1), 8 * 2 ^ c):set_generated()
	tree:add(f.seq, tvb(2, 4))
	pinfo.cols.info:append(" seq=" .. tvb(2, 4):uint() .. " c=" .. c)
	if missed then
		tree:add_proto_expert_info(ex.missed)
		pinfo.cols.info:append(" M")
	end

	-- Queue sizes; occupancy[q] starts from them (version 1: the words sizes).
	local occupancy = {}
	local qtree = tree:add(f.queue_sizes, tvb(6, header - 6))
	for q = 0, 7 do
		local off = version == 2 and 6 + 4 * q or 6 + 8 * q
		occupancy[q] = tvb(off, 4):uint()
		qtree:add(f.queue_size, tvb(off, 4)):set_text("Queue " .. q .. ": " .. occupancy[q] ..
			" words")
		if version == 1 then
			qtree:add(f.queue_packets, tvb(off + 4, 4)):set_text("Queue " .. q .. ": " ..
				tvb(off + 4, 4):uint() .. " packets")
		end
	end

	-- Slots.
	local slot_bytes = len - header
	local n_slots = math.floor(slot_bytes / 4)
	tree:add(f.slots, tvb(header, slot_bytes), n_slots):set_generated()
	if slot_bytes % 4 ~= 0 then
		malformed(pinfo, tree, tvb(header + 4 * n_slots), "partial_slot")
		return len
	end
	if n_slots == 0 then
		malformed(pinfo, tree, tvb(header - 1, 1), "no_events")
		return len
	end
	if raw:byte(header + 1) >= 64 then
		malformed(pinfo, tree, tvb(header, 4), "first_not_timestamp")
		return len
	end
	if n_slots < 2 then
		malformed(pinfo, tree, tvb(header, 4), "cut_timestamp")
		return len
	end

	local scale = 2 ^ (c + 3) -- ns per tick
	local etree = tree:add(f.event_list, tvb(header, slot_bytes))
	local hi, lo -- the current tick, bits 61:32 and 31:0 (hi wraps at 2^30: ticks are mod 2^62)
	local start_hi, start_lo, first_hi, first_lo, last_hi, last_lo
	local n, n_ts, verdict = 0, 0, nil
	local i = 0
	while i < n_slots do
		local pos = header + 4 * i -- byte offset of the slot in the payload
		local s1, s2, s3, s4 = raw:byte(pos + 1, pos + 4)
		local kind = math.floor(s1 / 64)
		if kind == TIMESTAMP then
			if i + 1 >= n_slots then
				verdict = "cut_timestamp"
				etree:add(f.timestamp, tvb(pos, 4)):append_text(" (cut)")
				break
			end
			local t1, t2, t3, t4 = raw:byte(pos + 5, pos + 8)
			hi = ((s1 * 256 + s2) * 256 + s3) * 256 + s4 -- the type bits are 00: 30 bits
			lo = ((t1 * 256 + t2) * 256 + t3) * 256 + t4
			local ts = etree:add(f.timestamp, tvb(pos, 8))
			local tick, time = tick64(hi, lo), time64(hi, lo, scale)
			ts:add(f.ts_tick, tvb(pos, 8), tick)
			ts:add(f.ts_time, tvb(pos, 8), time):set_generated()
			ts:append_text(": tick " .. tostring(tick) .. ", " .. tostring(time) .. " ns")
			if n_ts == 0 then
				start_hi, start_lo = hi, lo
				tree:add(f.start_tick, tvb(pos, 8), tick):set_generated()
				tree:add(f.start_time, tvb(pos, 8), time):set_generated()
			else
				ts:add_proto_expert_info(ex.inserted)
			end
			n_ts = n_ts + 1
			i = i + 2
		else
			local field = (s2 % 8 * 256 + s3) * 256 + s4 -- bits 18:0
			local step
			if version == 2 then
				step = field -- the gap since the previous event
			else -- version 1: the low 19 bits of the tick; advance to the next tick with them
				step = (field - lo % TWO19) % TWO19
			end
			lo = lo + step
			if lo >= TWO32 then
				lo = lo - TWO32
				hi = (hi + 1) % TWO30 -- tick modulo 2^62
			end
			if n == 0 then
				first_hi, first_lo = hi, lo
			end
			last_hi, last_lo = hi, lo
			n = n + 1

			local q = math.floor(s1 / 8) % 8
			local length = (s1 % 8) * 32 + math.floor(s2 / 8)
			if kind == ARRIVAL then
				occupancy[q] = occupancy[q] + length
			elseif kind == DEPARTURE then
				occupancy[q] = occupancy[q] - length
			end
			local range = tvb(pos, 4)
			local time = time64(hi, lo, scale)
			local ev = etree:add(f.event, range)
			ev:add(f.ev_type, range)
			ev:add(f.ev_queue, range)
			ev:add(f.ev_length, range)
			ev:add(version == 2 and f.ev_gap or f.ev_tick_low, range)
			ev:add(f.ev_tick, range, tick64(hi, lo)):set_generated()
			ev:add(f.ev_time, range, time):set_generated()
			local occ = ev:add(f.ev_occupancy, range, Int64.new(occupancy[q])):set_generated()
			ev:add(f.ev_slot, range, i):set_generated()
			if occupancy[q] < 0 then
				occ:add_proto_expert_info(ex.negative)
			end
			ev:set_text(event_names[kind] .. " q" .. q .. " len " .. length .. " at " ..
				time_text(hi, lo, scale, time) .. " ns, occupancy " .. occupancy[q])
			i = i + 1
		end
	end

	tree:add(f.events, tvb(header, slot_bytes), n):set_generated()
	tree:add(f.timestamps, tvb(header, slot_bytes), n_ts):set_generated()
	if n == 0 then -- as the decoder: first and last are the start tick (version 1)
		first_hi, first_lo, last_hi, last_lo = start_hi, start_lo, start_hi, start_lo
	end
	tree:add(f.first_tick, tvb(header, slot_bytes), tick64(first_hi, first_lo)):set_generated()
	tree:add(f.last_tick, tvb(header, slot_bytes), tick64(last_hi, last_lo)):set_generated()
	etree:append_text(": " .. n .. " events, " .. n_ts .. " timestamps")
	pinfo.cols.info:append(" events=" .. n)
	if verdict == nil and n == 0 and version == 2 then
		verdict = "no_events" -- a version 2 packet of timestamps only
	end
	if verdict then
		malformed(pinfo, tree, tvb(header, slot_bytes), verdict)
	end
	return len
end

-- Registration on the UDP port, moved when the preference changes.
local udp_port_table = DissectorTable.get("udp.port")
local registered_port = DEFAULT_PORT
udp_port_table:add(registered_port, pktstats)

function pktstats.prefs_changed()
	if pktstats.prefs.udp_port ~= registered_port then
		udp_port_table:remove(registered_port, pktstats)
		registered_port = pktstats.prefs.udp_port
		udp_port_table:add(registered_port, pktstats)
	end
end

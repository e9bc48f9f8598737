-- SPDX-License-Identifier: BSD-3-Clause
--
-- pktstats_headroom.lua: Wireshark / tshark dissector for the headroom measurement PDU,
-- version 1 (EtherType 0x89A2, subtype 1; docs/oam.md), with which a switch measures the round
-- trip t4 - t1 - (t3 - t2) of one link (the IEEE 802.1Qdt proposal's "Option 1"; no standard
-- fixes its bytes yet, the layout is this project's).
--
--   tshark -X lua_script:sw/tools/wireshark/pktstats_headroom.lua -r capture.pcap -V
--   tshark -X lua_script:sw/tools/wireshark/pktstats_headroom.lua -r capture.pcap -T fields \
--          -e pktstats_headroom.type -e pktstats_headroom.round_trip
--   (or copy the file into ~/.local/lib/wireshark/plugins/ to load it always)
--
-- docs/wireshark.md lists the fields. What this dissector does, and why:
--
--  * Byte 14: encapsulation version (bits 7:4, 0) and subtype (bits 3:0). Subtype 1 is the
--    headroom PDU. Subtype 0 is IEEE 802.1Qcz's congestion isolation message (CIM), which
--    shares the EtherType: it is named (an expert note) and not dissected further. Any other
--    subtype is malformed.
--  * Byte 15: PDU version (bits 7:4, 1), reserved (bits 3:2), type (bits 1:0: 1 request,
--    2 response). A PDU of another version is not dissected further (its layout is unknown).
--  * t1..t4 (bytes 16..47): 32-bit seconds (the low 32 bits of the switch's time of day) and
--    32-bit nanoseconds each, shown separately and as one absolute time. A stamp of all zeros
--    is "not filled" and gets no absolute time; nanoseconds of 10^9 or more are malformed.
--  * Round trip t4 - t1 - (t3 - t2) in ns, for a response whose four stamps are filled. Each
--    difference takes seconds modulo 2^32 (as pktstats_wire_time_diff() does), so it is right
--    across the 32-bit wrap of the seconds. Lua 5.2 (Wireshark up to 4.2) has only doubles, so
--    the sum is made of Int64 objects, exact to the nanosecond.
--  * Malformed frames get one verdict in pktstats_headroom.error, named as the C parser
--    (pktstats_headroom_parse(), enum pktstats_oam_error) names its errors: truncated,
--    bad_subtype, bad_version (PDU version not 1, or encapsulation version not 0), bad_type,
--    bad_timestamp; and an expert item. Reserved bits that are not zero get a warning (the
--    switch takes only byte 15 = 0x11 or 0x12, docs/oam.md) but no verdict. A malformed frame
--    is dissected as far as it goes (Wireshark practice).
--  * Tested with tshark 4.0 (Lua 5.2) by tb/wireshark/test_headroom_dissector.py; written to
--    stay valid in Lua 5.4 (Wireshark 4.4+), not tested there.

local headroom = Proto("pktstats_headroom", "pktstats headroom measurement PDU")

local ETHERTYPE = 0x89A2
local SUBTYPE_CIM, SUBTYPE_HEADROOM = 0, 1
local REQUEST, RESPONSE = 1, 2
local PDU_LEN = 34 -- bytes 14..47 of the frame: the two header bytes and t1..t4
local BILLION = 1000000000
local TWO31, TWO32 = 2147483648, 4294967296

local subtype_names = {
	[SUBTYPE_CIM] = "Congestion isolation message (IEEE 802.1Qcz)",
	[SUBTYPE_HEADROOM] = "Headroom measurement",
}
local type_names = { [REQUEST] = "Request", [RESPONSE] = "Response" }
local stamp_meaning = {
	"request's last bit leaving the sender",
	"request's last bit arriving at the responder",
	"response's last bit leaving the responder",
	"response's last bit arriving at the sender",
}

-- Fields. Names are the filter names (docs/wireshark.md).
local f = {
	encapsulation_version = ProtoField.uint8("pktstats_headroom.encapsulation_version",
		"Encapsulation version", base.DEC, nil, 0xf0),
	subtype = ProtoField.uint8("pktstats_headroom.subtype", "Subtype", base.DEC, subtype_names,
		0x0f),
	version = ProtoField.uint8("pktstats_headroom.version", "PDU version", base.DEC, nil, 0xf0),
	reserved = ProtoField.uint8("pktstats_headroom.reserved", "Reserved", base.DEC, nil, 0x0c),
	type = ProtoField.uint8("pktstats_headroom.type", "Type", base.DEC, type_names, 0x03),
	round_trip = ProtoField.int64("pktstats_headroom.round_trip", "Round trip (ns)", base.DEC),
	padding = ProtoField.bytes("pktstats_headroom.padding", "Padding"),
	error = ProtoField.string("pktstats_headroom.error", "Malformed"),
}
local stamp_fields = {}
for i = 1, 4 do
	local name = "pktstats_headroom.t" .. i
	stamp_fields[i] = {
		stamp = ProtoField.none(name, "t" .. i),
		seconds = ProtoField.uint32(name .. ".seconds", "Seconds", base.DEC),
		nanoseconds = ProtoField.uint32(name .. ".nanoseconds", "Nanoseconds", base.DEC),
		time = ProtoField.absolute_time(name .. ".time", "Time", base.UTC),
	}
end
local field_list = {}
for _, field in pairs(f) do
	field_list[#field_list + 1] = field
end
for i = 1, 4 do
	for _, key in ipairs({ "stamp", "seconds", "nanoseconds", "time" }) do
		field_list[#field_list + 1] = stamp_fields[i][key]
	end
end
headroom.fields = field_list

local MALFORMED, ERROR = expert.group.MALFORMED, expert.severity.ERROR
local ex = {
	truncated = ProtoExpert.new("pktstats_headroom.expert.truncated",
		"Truncated: a headroom PDU has 34 bytes after the EtherType (t4 ends at byte 47)",
		MALFORMED, ERROR),
	bad_subtype = ProtoExpert.new("pktstats_headroom.expert.bad_subtype",
		"Unknown 0x89A2 subtype (1 is the headroom PDU, 0 the 802.1Qcz CIM)", MALFORMED, ERROR),
	cim = ProtoExpert.new("pktstats_headroom.expert.cim",
		"Congestion isolation message (IEEE 802.1Qcz, subtype 0): not a headroom PDU, "
		.. "not dissected", expert.group.PROTOCOL, expert.severity.NOTE),
	bad_version = ProtoExpert.new("pktstats_headroom.expert.bad_version",
		"Unsupported version (encapsulation version 0 and PDU version 1 are known)",
		MALFORMED, ERROR),
	bad_type = ProtoExpert.new("pktstats_headroom.expert.bad_type",
		"Type is neither request (1) nor response (2)", MALFORMED, ERROR),
	bad_timestamp = ProtoExpert.new("pktstats_headroom.expert.bad_timestamp",
		"Nanoseconds of 10^9 or more", MALFORMED, ERROR),
	bad_reserved = ProtoExpert.new("pktstats_headroom.expert.bad_reserved",
		"Reserved bits are not zero (version 1 sends them as 0; the switch does not handle it)",
		MALFORMED, ERROR),
}
headroom.experts = { ex.truncated, ex.bad_subtype, ex.cim, ex.bad_version, ex.bad_type,
	ex.bad_timestamp, ex.bad_reserved }

-- The verdict: pktstats_headroom.error, its expert item (unless given), the Info column.
local function malformed(pinfo, tree, range, name, expert_item)
	tree:add(f.error, range, name):set_generated()
	tree:add_proto_expert_info(expert_item or ex[name])
	pinfo.cols.info:append(" [malformed: " .. name .. "]")
end

-- b - a in ns as Int64: seconds modulo 2^32 taken as a signed 32-bit difference.
local function diff(b, a)
	local seconds = (b.seconds - a.seconds) % TWO32
	if seconds >= TWO31 then
		seconds = seconds - TWO32
	end
	return Int64.new(seconds) * BILLION + Int64.new(b.nanoseconds - a.nanoseconds)
end

-- One stamp at tvb offset `off`: its subtree; returns {seconds, nanoseconds, filled, valid}.
local function dissect_stamp(tvb, tree, i, off)
	local fields = stamp_fields[i]
	local range = tvb(off, 8)
	local seconds, nanoseconds = tvb(off, 4):uint(), tvb(off + 4, 4):uint()
	local stamp = { seconds = seconds, nanoseconds = nanoseconds,
		filled = seconds ~= 0 or nanoseconds ~= 0, valid = nanoseconds < BILLION }
	local item = tree:add(fields.stamp, range)
	item:add(fields.seconds, tvb(off, 4))
	local ns_item = item:add(fields.nanoseconds, tvb(off + 4, 4))
	local text = "t" .. i .. " (" .. stamp_meaning[i] .. "): "
	if not stamp.valid then
		ns_item:add_proto_expert_info(ex.bad_timestamp)
		item:set_text(text .. seconds .. " s " .. nanoseconds .. " ns (invalid nanoseconds)")
	elseif not stamp.filled then
		item:set_text(text .. "not filled")
	else
		local time = NSTime.new(seconds, nanoseconds)
		item:add(fields.time, range, time)
		item:set_text(text .. seconds .. string.format(".%09d", nanoseconds) .. " s")
	end
	return stamp
end

function headroom.dissector(tvb, pinfo, root)
	local len = tvb:len()
	pinfo.cols.protocol = "HEADROOM"
	pinfo.cols.info = "Headroom"
	local tree = root:add(headroom, tvb())
	if len < 1 then
		malformed(pinfo, tree, tvb(), "truncated")
		return len
	end

	local b14 = tvb(0, 1):uint()
	local encapsulation, subtype = math.floor(b14 / 16), b14 % 16
	tree:add(f.encapsulation_version, tvb(0, 1))
	tree:add(f.subtype, tvb(0, 1))
	if subtype == SUBTYPE_CIM then
		pinfo.cols.protocol = "CIM"
		pinfo.cols.info = "Congestion isolation message (802.1Qcz), not dissected"
		tree:set_text("IEEE 802.1Qcz congestion isolation message (0x89A2 subtype 0)")
		malformed(pinfo, tree, tvb(0, 1), "bad_subtype", ex.cim)
		return len
	elseif subtype ~= SUBTYPE_HEADROOM then
		pinfo.cols.info = "0x89A2 subtype " .. subtype
		malformed(pinfo, tree, tvb(0, 1), "bad_subtype")
		return len
	end
	if encapsulation ~= 0 then
		malformed(pinfo, tree, tvb(0, 1), "bad_version")
		return len
	end
	if len < 2 then
		malformed(pinfo, tree, tvb(), "truncated")
		return len
	end

	local b15 = tvb(1, 1):uint()
	local version, reserved, kind = math.floor(b15 / 16), math.floor(b15 / 4) % 4, b15 % 4
	tree:add(f.version, tvb(1, 1))
	pinfo.cols.info = "Headroom v" .. version
	if version ~= 1 then
		malformed(pinfo, tree, tvb(1, 1), "bad_version")
		return len
	end
	tree:add(f.reserved, tvb(1, 1))
	if reserved ~= 0 then
		malformed(pinfo, tree, tvb(1, 1), "bad_reserved")
		return len
	end
	tree:add(f.type, tvb(1, 1))
	local verdict
	if type_names[kind] then
		pinfo.cols.info = "Headroom " .. type_names[kind]:lower()
	else
		pinfo.cols.info = "Headroom type " .. kind
		verdict = "bad_type"
	end
	tree:append_text(", " .. (type_names[kind] or ("type " .. kind)))

	-- The stamps that are there, then the verdict (the first fault found, in this order).
	local stamps = {}
	for i = 1, 4 do
		local off = 2 + 8 * (i - 1)
		if off + 8 > len then
			break
		end
		stamps[i] = dissect_stamp(tvb, tree, i, off)
		if not verdict and not stamps[i].valid then
			verdict = "bad_timestamp"
		end
	end
	if len > PDU_LEN then
		tree:add(f.padding, tvb(PDU_LEN, len - PDU_LEN))
	end
	if len < PDU_LEN and verdict ~= "bad_type" then
		verdict = "truncated"
	end
	if verdict then
		local range = verdict == "bad_type" and tvb(1, 1) or tvb()
		if verdict == "bad_timestamp" then
			-- The expert item is on each bad stamp already; the verdict needs no second one.
			tree:add(f.error, tvb(2, 32), verdict):set_generated()
			pinfo.cols.info:append(" [malformed: " .. verdict .. "]")
		else
			malformed(pinfo, tree, range, verdict)
		end
		return len
	end

	if kind == RESPONSE then
		local filled = stamps[1].filled and stamps[2].filled and stamps[3].filled and
			stamps[4].filled
		if filled then
			local rtt = diff(stamps[4], stamps[1]) - diff(stamps[3], stamps[2])
			tree:add(f.round_trip, tvb(2, 32), rtt):set_generated()
			pinfo.cols.info:append(", round trip " .. tostring(rtt) .. " ns")
			tree:append_text(", round trip " .. tostring(rtt) .. " ns")
		end
	end
	return len
end

DissectorTable.get("ethertype"):add(ETHERTYPE, headroom)

/// One ISO BMFF box header as read (ISO/IEC 14496-12, 4.2): where the box starts, its payload and end.
struct BMFFBox: Equatable {
    /// The box type (four characters, big-endian).
    let type: UInt32
    /// The offset of the box's first byte.
    let start: Int
    /// The offset of the first byte after the header (size, type, any 64-bit size and `uuid` type).
    let payload: Int
    /// One past the box's last byte, as declared; never past its parent nor the object.
    let end: Int

    /// Reads the box header at `offset` inside a parent that ends at `parentEnd`, counting it in `boxes`.
    ///
    /// `size == 1`: a 64-bit size follows the type; `size == 0`: the box runs to the end of its parent
    /// (ISO BMFF allows that for the last box of the file; it is read the same at any level); `uuid`
    /// boxes carry a 16-byte extended type. A box that runs past the object is `.truncated`; one that
    /// runs past its parent but not the object is malformed.
    static func read(
        at offset: Int, parentEnd: Int, _ reader: inout ProbeReader, boxes: inout Int, limits: ImageProbeLimits
    ) throws(ProbeStop) -> BMFFBox {
        boxes += 1
        if boxes > limits.maxBoxes { throw .malformed(.tooManyBoxes) }
        guard offset >= 0, offset <= parentEnd, parentEnd <= reader.total else { throw .malformed(.boxOverrunsParent) }
        let room = UInt64(parentEnd - offset)
        let objectRoom = UInt64(reader.total - offset)
        /// The stop for a box or header of `length` bytes that does not fit its parent.
        func overrun(_ length: UInt64) -> ProbeStop {
            length > objectRoom ? .truncated : .malformed(.boxOverrunsParent)
        }
        if room < 8 { throw overrun(8) }
        let size32 = try reader.be32(offset)
        let type = try reader.be32(offset + 4)
        var header: UInt64 = 8
        let size: UInt64
        switch size32 {
        case 0:
            size = room
        case 1:
            if room < 16 { throw overrun(16) }
            size = try reader.be64(offset + 8)
            header = 16
        default:
            size = UInt64(size32)
        }
        if type == FourCC.uuid { header += 16 }
        guard size >= header else { throw .malformed(.boxSize) }
        guard size <= room else { throw overrun(size) }
        return BMFFBox(type: type, start: offset, payload: offset + Int(header), end: offset + Int(size))
    }

    /// The payload length.
    var payloadLength: Int { end - payload }

    /// Requires `length` bytes of payload at `offset` from its start (else `.boxSize`), then reads them.
    func field(_ offset: Int, _ length: Int, _ reader: inout ProbeReader) throws(ProbeStop) {
        guard offset >= 0, length >= 0, offset <= payloadLength, length <= payloadLength - offset else {
            throw incomplete(.boxSize, reader)
        }
        try reader.need(payload + offset, length)
    }

    /// The stop for content this box lacks: `.truncated` when the box reaches the end of the object (a
    /// cut file looks just like that, above all with `size == 0`), else `defect`.
    func incomplete(_ defect: ImageDefect, _ reader: ProbeReader) -> ProbeStop {
        end == reader.total ? .truncated : .malformed(defect)
    }
}

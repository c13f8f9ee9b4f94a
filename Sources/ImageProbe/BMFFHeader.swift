/// Reads HEIF, HEIC and AVIF files (ISO/IEC 23008-12 on ISO/IEC 14496-12; AV1 Image File Format): the
/// format from the `ftyp` brands, the size from the primary item's `ispe` property.
enum BMFFHeader {
    /// Brands of AV1-coded HEIF: `avif` (image), `avis` (sequence).
    static let avifBrands: Set<UInt32> = [FourCC.code("avif"), FourCC.code("avis")]
    /// Brands of HEVC-coded HEIF (ISO/IEC 23008-12, annex B): images and sequences.
    static let heicBrands: Set<UInt32> = Set(
        ["heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs"].map(FourCC.code))
    /// The structural HEIF brands: `mif1` (image), `msf1` (sequence).
    static let heifBrands: Set<UInt32> = [FourCC.code("mif1"), FourCC.code("msf1")]

    /// The result for a file that starts with a box of type `ftyp`.
    static func inspect(_ reader: inout ProbeReader, limits: ImageProbeLimits) -> ImageProbeResult {
        var boxes = 0
        let fileType: BMFFBox
        let format: ImageFormat?
        do throws(ProbeStop) {
            fileType = try BMFFBox.read(at: 0, parentEnd: reader.total, &reader, boxes: &boxes, limits: limits)
            // An ftyp running to the end of the file (size 0) leaves no room for meta; refused whatever
            // the object's length, which would otherwise decide whether its brands could be read at all.
            guard try reader.be32(0) != 0 else { throw .malformed(.boxSize) }
            format = try brandFormat(fileType, &reader)
        } catch {
            switch error {
            case .beyond, .truncated: return .notImage(.truncated(nil))
            case .malformed(let defect): return .notImage(.malformed(nil, defect))
            }
        }
        guard let format else { return .notImage(.unknownSignature) }
        do throws(ProbeStop) {
            let size = try primarySize(after: fileType, &reader, boxes: &boxes, limits: limits)
            return .image(DetectedImage(format: format, size: size, bytesUsed: reader.used))
        } catch {
            switch error {
            case .beyond: return .image(DetectedImage(format: format, size: nil, bytesUsed: reader.count))
            case .truncated: return .notImage(.truncated(format))
            case .malformed(let defect): return .notImage(.malformed(format, defect))
            }
        }
    }

    /// The format the `ftyp` brands name, or nil when none is a HEIF brand.
    ///
    /// The payload is a major brand, a minor version and compatible brands (4 bytes each). A major brand
    /// of AVIF or HEVC decides; otherwise (no HEIF major brand, or the structural `mif1`/`msf1`) an AVIF
    /// compatible brand wins over an HEVC one, which wins over plain `mif1`/`msf1`.
    static func brandFormat(_ box: BMFFBox, _ reader: inout ProbeReader) throws(ProbeStop) -> ImageFormat? {
        guard box.payloadLength >= 8, box.payloadLength % 4 == 0 else { throw .malformed(.boxSize) }
        try reader.need(box.payload, box.payloadLength)
        /// The format one brand names.
        func format(_ brand: UInt32) -> ImageFormat? {
            if avifBrands.contains(brand) { return .avif }
            if heicBrands.contains(brand) { return .heic }
            if heifBrands.contains(brand) { return .heif }
            return nil
        }
        let major = format(try reader.be32(box.payload))
        if major == .avif || major == .heic { return major }
        var found = major
        var offset = box.payload + 8
        while offset < box.end {
            switch format(try reader.be32(offset)) {
            case .avif: return .avif
            case .heic: found = .heic
            case .heif: found = found ?? .heif
            default: break
            }
            offset += 4
        }
        return found
    }

    /// The size of the primary item: the top-level `meta` after `ftyp`, its `hdlr` (`pict`), `pitm` and
    /// `iprp`; in `iprp`, the `ipco` property list and then the `ipma` entry of the primary item, whose
    /// first `ispe` association gives width and height (ISO/IEC 23008-12, 6.5.3: every image item has one).
    ///
    /// The walk stops as soon as the size is known, so bytes after it are never read. Rotation (`irot`)
    /// and crop (`clap`) are not applied: the size is the coded image's.
    static func primarySize(
        after fileType: BMFFBox, _ reader: inout ProbeReader, boxes: inout Int, limits: ImageProbeLimits
    ) throws(ProbeStop) -> ImageSize {
        var offset = fileType.end
        while true {
            let box = try BMFFBox.read(at: offset, parentEnd: reader.total, &reader, boxes: &boxes, limits: limits)
            if box.type == FourCC.meta {
                return try metaSize(box, &reader, boxes: &boxes, limits: limits)
            }
            offset = box.end
        }
    }

    /// The primary item's size from a `meta` box (a full box: version 0 and flags, then child boxes).
    static func metaSize(
        _ meta: BMFFBox, _ reader: inout ProbeReader, boxes: inout Int, limits: ImageProbeLimits
    ) throws(ProbeStop) -> ImageSize {
        try meta.field(0, 4, &reader)
        guard try reader.u8(meta.payload) == 0 else { throw .malformed(.unsupportedVersion) }
        var handler = false
        var primary: UInt32? = nil
        var properties: BMFFBox? = nil
        var offset = meta.payload + 4
        while !handler || primary == nil || properties == nil {
            guard offset < meta.end else {
                throw meta.incomplete(.missingBox(!handler ? "hdlr" : primary == nil ? "pitm" : "iprp"), reader)
            }
            let box = try BMFFBox.read(at: offset, parentEnd: meta.end, &reader, boxes: &boxes, limits: limits)
            switch box.type {
            case FourCC.hdlr where !handler:
                // version, flags, pre_defined, handler_type
                try box.field(0, 12, &reader)
                guard try reader.be32(box.payload + 8) == FourCC.pict else { throw .malformed(.notPictureHandler) }
                handler = true
            case FourCC.pitm where primary == nil:
                try box.field(0, 4, &reader)
                switch try reader.u8(box.payload) {
                case 0:
                    try box.field(4, 2, &reader)
                    primary = UInt32(try reader.be16(box.payload + 4))
                case 1:
                    try box.field(4, 4, &reader)
                    primary = try reader.be32(box.payload + 4)
                default:
                    throw .malformed(.unsupportedVersion)
                }
            case FourCC.iprp where properties == nil:
                properties = box
            default:
                break
            }
            offset = box.end
        }
        guard let primary, let properties else { throw .malformed(.missingBox("iprp")) }
        return try propertiesSize(properties, primary: primary, &reader, boxes: &boxes, limits: limits)
    }

    /// The primary item's size from an `iprp` box: `ipco` first, then `ipma` boxes.
    static func propertiesSize(
        _ iprp: BMFFBox, primary: UInt32, _ reader: inout ProbeReader, boxes: inout Int, limits: ImageProbeLimits
    ) throws(ProbeStop) -> ImageSize {
        var list: [BMFFBox]? = nil
        var offset = iprp.payload
        while offset < iprp.end {
            let box = try BMFFBox.read(at: offset, parentEnd: iprp.end, &reader, boxes: &boxes, limits: limits)
            if box.type == FourCC.ipco, list == nil {
                var children: [BMFFBox] = []
                var child = box.payload
                while child < box.end {
                    let property = try BMFFBox.read(
                        at: child, parentEnd: box.end, &reader, boxes: &boxes, limits: limits)
                    children.append(property)
                    child = property.end
                }
                list = children
            } else if box.type == FourCC.ipma {
                guard let list else { throw .malformed(.missingBox("ipco")) }
                if let size = try associatedSize(box, primary: primary, properties: list, &reader) { return size }
            }
            offset = box.end
        }
        throw iprp.incomplete(list == nil ? .missingBox("ipco") : .noImageSize, reader)
    }

    /// The size from the first `ispe` associated with `primary` in one `ipma` box, or nil when the box
    /// has no entry for it.
    ///
    /// ISO/IEC 23008-12, 9.3: a full box (version 0: 16-bit item IDs, 1: 32-bit; flags bit 0: 16-bit
    /// property indices, else 8-bit), an entry count, then per entry the item ID, an association count
    /// and the associations (an essential bit and a 1-based index into `ipco`; 0 means none).
    static func associatedSize(
        _ ipma: BMFFBox, primary: UInt32, properties: [BMFFBox], _ reader: inout ProbeReader
    ) throws(ProbeStop) -> ImageSize? {
        try ipma.field(0, 8, &reader)
        let version = try reader.u8(ipma.payload)
        guard version <= 1 else { throw .malformed(.unsupportedVersion) }
        let wideIndex = try reader.be24(ipma.payload + 1) & 1 == 1
        let entries = try reader.be32(ipma.payload + 4)
        var offset = 8
        var entry: UInt32 = 0
        while entry < entries {
            entry += 1
            let item: UInt32
            if version == 0 {
                try ipma.field(offset, 2, &reader)
                item = UInt32(try reader.be16(ipma.payload + offset))
                offset += 2
            } else {
                try ipma.field(offset, 4, &reader)
                item = try reader.be32(ipma.payload + offset)
                offset += 4
            }
            try ipma.field(offset, 1, &reader)
            let associations = Int(try reader.u8(ipma.payload + offset))
            offset += 1
            let width = wideIndex ? 2 : 1
            try ipma.field(offset, associations * width, &reader)
            if item == primary {
                for index in 0..<associations {
                    let at = ipma.payload + offset + index * width
                    let property = wideIndex ? Int(try reader.be16(at) & 0x7FFF) : Int(try reader.u8(at) & 0x7F)
                    if property == 0 { continue }
                    guard property <= properties.count else { throw .malformed(.propertyIndex) }
                    let box = properties[property - 1]
                    if box.type == FourCC.ispe { return try extent(box, &reader) }
                }
                throw .malformed(.noImageSize)
            }
            offset += associations * width
        }
        return nil
    }

    /// Width and height of an `ispe` property (a full box of version 0 with two 32-bit fields).
    static func extent(_ ispe: BMFFBox, _ reader: inout ProbeReader) throws(ProbeStop) -> ImageSize {
        try ispe.field(0, 12, &reader)
        guard try reader.u8(ispe.payload) == 0 else { throw .malformed(.unsupportedVersion) }
        let width = try reader.be32(ispe.payload + 4)
        let height = try reader.be32(ispe.payload + 8)
        guard width > 0, height > 0 else { throw .malformed(.zeroDimension) }
        return ImageSize(width: Int(width), height: Int(height))
    }
}

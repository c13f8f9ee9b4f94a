extension ChunkedDecoder {
    /// Advances the state machine by one byte outside chunk data; returns the error if the byte is invalid.
    mutating func step(_ byte: UInt8) -> ParseError? {
        switch state {
        case .size:
            return sizeByte(byte)
        case .extensionBeforeName, .extensionName, .extensionAfterName, .extensionBeforeValue,
            .extensionToken, .extensionQuoted, .extensionQuotedPair, .extensionAfterValue:
            if byte != ASCII.cr {
                extensionBytes &+= 1
                if extensionBytes > limits.maxChunkExtensionBytes { return .badRequest("chunk extension too long") }
            }
            return extensionByte(byte)
        case .sizeLF:
            guard byte == ASCII.lf else { return .badRequest("bare CR in chunk size line") }
            if chunkRemaining == 0 {
                state = .trailerLineStart
            } else {
                state = .data
            }
            return nil
        case .dataCR:
            guard byte == ASCII.cr else { return .badRequest("missing CRLF after chunk data") }
            state = .dataLF
            return nil
        case .dataLF:
            guard byte == ASCII.lf else { return .badRequest("missing CRLF after chunk data") }
            state = .size
            sizeDigits = 0
            extensionBytes = 0
            chunkRemaining = 0
            return nil
        case .trailerLineStart, .trailerName, .trailerValue, .trailerLF, .finalLF:
            trailerBytes &+= 1
            if trailerBytes > limits.maxTrailerBytes { return .headerTooLarge }
            return trailerByte(byte)
        case .data, .done, .failed:
            preconditionFailure("step(_:) called in state \(state)")
        }
    }

    /// chunk-size = 1*HEXDIG, followed by `;` extensions or CRLF; at most 16 digits, no overflow.
    private mutating func sizeByte(_ byte: UInt8) -> ParseError? {
        if let digit = ASCII.hexValue(byte) {
            sizeDigits &+= 1
            guard sizeDigits <= 16 else { return .badRequest("chunk size has more than 16 hex digits") }
            guard chunkRemaining <= (Int.max - Int(digit)) / 16 else { return .badRequest("chunk size overflow") }
            chunkRemaining = chunkRemaining &* 16 &+ Int(digit)
            guard chunkRemaining <= maxBodyBytes &- announcedBytes else { return .payloadTooLarge }
            return nil
        }
        guard sizeDigits > 0 else { return .badRequest("invalid chunk size") }
        switch byte {
        case ASCII.cr:
            announcedBytes &+= chunkRemaining
            state = .sizeLF
        case ASCII.semicolon:
            announcedBytes &+= chunkRemaining
            extensionBytes = 1
            state = .extensionBeforeName
        default:
            return .badRequest("invalid character after chunk size")
        }
        return nil
    }

    /// chunk-ext = *( BWS ";" BWS ext-name [ BWS "=" BWS ( token / quoted-string ) ] ) (RFC 9112 §7.1.1).
    private mutating func extensionByte(_ byte: UInt8) -> ParseError? {
        let whitespace = ASCII.isWhitespace(byte)
        let token = ASCII.isTokenChar(byte)
        switch state {
        case .extensionBeforeName:
            if token {
                state = .extensionName
            } else if !whitespace {
                return .badRequest("invalid chunk extension")
            }
        case .extensionName, .extensionToken:
            if token { return nil }
            if whitespace {
                state = state == .extensionName ? .extensionAfterName : .extensionAfterValue
            } else if byte == ASCII.equals && state == .extensionName {
                state = .extensionBeforeValue
            } else {
                return endOfExtension(byte)
            }
        case .extensionAfterName:
            if byte == ASCII.equals {
                state = .extensionBeforeValue
            } else if !whitespace {
                return endOfExtension(byte)
            }
        case .extensionBeforeValue:
            if token {
                state = .extensionToken
            } else if byte == ASCII.quote {
                state = .extensionQuoted
            } else if !whitespace {
                return .badRequest("invalid chunk extension value")
            }
        case .extensionQuoted:
            if byte == ASCII.quote {
                state = .extensionAfterValue
            } else if byte == ASCII.backslash {
                state = .extensionQuotedPair
            } else if !ASCII.isFieldValueByte(byte) {
                return .badRequest("invalid character in quoted chunk extension")
            }
        case .extensionQuotedPair:
            guard ASCII.isFieldValueByte(byte) else {
                return .badRequest("invalid character in quoted chunk extension")
            }
            state = .extensionQuoted
        case .extensionAfterValue:
            if !whitespace { return endOfExtension(byte) }
        default:
            preconditionFailure("extensionByte(_:) called in state \(state)")
        }
        return nil
    }

    /// After a complete extension: `;` starts another, CR ends the chunk line, anything else is a 400.
    private mutating func endOfExtension(_ byte: UInt8) -> ParseError? {
        switch byte {
        case ASCII.semicolon:
            state = .extensionBeforeName
            return nil
        case ASCII.cr:
            state = .sizeLF
            return nil
        default:
            return .badRequest("invalid chunk extension")
        }
    }

    /// trailer-section = *( field-line CRLF ) CRLF, checked like the header section (RFC 9112 §7.1.2).
    private mutating func trailerByte(_ byte: UInt8) -> ParseError? {
        switch state {
        case .trailerLineStart:
            if byte == ASCII.cr {
                state = .finalLF
            } else if ASCII.isTokenChar(byte) {
                trailerLines &+= 1
                guard trailerLines <= limits.maxHeaderLines else { return .headerTooLarge }
                state = .trailerName
            } else if ASCII.isWhitespace(byte) {
                return .badRequest("obsolete line folding in trailer")
            } else if byte == ASCII.colon {
                return .badRequest("empty trailer field name")
            } else {
                return .badRequest(byte == ASCII.lf ? "bare LF in trailer" : "invalid character in trailer field name")
            }
        case .trailerName:
            if byte == ASCII.colon {
                state = .trailerValue
            } else if !ASCII.isTokenChar(byte) {
                if ASCII.isWhitespace(byte) { return .badRequest("whitespace before colon in trailer") }
                if byte == ASCII.cr || byte == ASCII.lf { return .badRequest("trailer line without colon") }
                return .badRequest("invalid character in trailer field name")
            }
        case .trailerValue:
            if byte == ASCII.cr {
                state = .trailerLF
            } else if !ASCII.isFieldValueByte(byte) {
                return .badRequest(byte == ASCII.lf ? "bare LF in trailer" : "invalid character in trailer value")
            }
        case .trailerLF:
            guard byte == ASCII.lf else { return .badRequest("bare CR in trailer") }
            state = .trailerLineStart
        case .finalLF:
            guard byte == ASCII.lf else { return .badRequest("bare CR at end of trailer section") }
            state = .done
        default:
            preconditionFailure("trailerByte(_:) called in state \(state)")
        }
        return nil
    }
}

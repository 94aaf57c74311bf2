//! RFC 9535 JSONPath, compiled once and evaluated to JSON Pointers.

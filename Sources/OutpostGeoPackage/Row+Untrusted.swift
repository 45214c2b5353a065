import GRDB

extension Row {
    /// A value read from a file someone else made: nil for NULL, and a thrown
    /// `ReplicaChanges.Failure` for a missing column or a value of another type, where GRDB's
    /// subscripts stop the process (found by FuzzTesting's FuzzGeoPackage).
    func untrusted<Value: DatabaseValueConvertible>(_ index: Int, _ type: Value.Type = Value.self) throws -> Value? {
        guard index < count else { throw ReplicaChanges.Failure.invalid("a row has no column \(index)") }
        do { return try decode(Value?.self, atIndex: index) } catch {
            throw ReplicaChanges.Failure.invalid("a value of the wrong type in column \(index)")
        }
    }

    func untrusted<Value: DatabaseValueConvertible>(_ column: String, _ type: Value.Type = Value.self) throws -> Value? {
        guard hasColumn(column) else { throw ReplicaChanges.Failure.invalid("no column \(column)") }
        do { return try decode(Value?.self, forColumn: column) } catch {
            throw ReplicaChanges.Failure.invalid("a value of the wrong type in column \(column)")
        }
    }

    /// The same, where NULL is not allowed either.
    func required<Value: DatabaseValueConvertible>(_ index: Int, _ type: Value.Type = Value.self) throws -> Value {
        guard let value = try untrusted(index, Value.self) else { throw ReplicaChanges.Failure.invalid("a NULL in column \(index)") }
        return value
    }

    func required<Value: DatabaseValueConvertible>(_ column: String, _ type: Value.Type = Value.self) throws -> Value {
        guard let value = try untrusted(column, Value.self) else { throw ReplicaChanges.Failure.invalid("a NULL in column \(column)") }
        return value
    }
}

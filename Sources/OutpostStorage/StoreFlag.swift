/// Facts a store keeps about its own history.
public enum StoreFlag: String, Sendable, CaseIterable {
    /// The demo was seeded, or the store held services or tile sets of its own at a start: it is
    /// never seeded (again), even when everything in it is deleted (`DemoData.seedIfNew`).
    case demoSeeded = "demo-seeded"
}

/// Choices an organisation's administrator makes and the store keeps, each a text value
/// (JSON where it has parts) read back as written (`StoreMaintenance.setting`).
public enum StoreSetting: String, Sendable, CaseIterable {
    /// The utility services `portals/self.helperServices` names: `HelperServiceChoice` as JSON.
    case helperServices = "helper-services"
}

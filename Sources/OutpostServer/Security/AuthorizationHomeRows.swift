/// The rows of the organisation's home in the browser (`/arcgis/home`, issue 48). Its pages
/// read no token (a token in the query counts for nothing): what they show comes from the REST
/// API asked as the user of the browser's sign-in cookie, so its rows decide. Its forms are
/// refused without the browser's forms' secret (`Right.homeForm`).
extension AuthorizationTable {
    static let homeRows: [Row] = [
        Row(.root, "arcgis/home", .get, .open, .nothing, .admitted, "a redirect to index.html"),
        Row(.root, "arcgis/home/signin.html", .get, .open, .nothing, .admitted, "a redirect to the portal's oauth2/authorize"),
        Row(
            .root, "arcgis/home/postsignin.html", .get, .open, .nothing, .admitted,
            "the code exchanged at oauth2/token with the verifier of the browser's cookie; nothing without it"),
        Row(.root, "arcgis/home/assets/:file", .get, .open, .nothing, .admitted, "the home's style sheet and scripts"),
        Row(
            .root, "arcgis/home/:page", .get, .open, .nothing, .admitted,
            "a page: what it shows is what the REST API answers the cookie's user"),
        Row(
            .root, "arcgis/home/actions/:action", .change, .open, .nothing, .homeForm,
            "a form: the forms' secret and this origin, then the REST operation as the cookie's user"),
    ]
}

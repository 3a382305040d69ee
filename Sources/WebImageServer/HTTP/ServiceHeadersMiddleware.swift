import HTTPTypes
import Hummingbird

/// What every answer of the stand-alone service gets, routed or not: `X-Content-Type-Options:
/// nosniff` (no browser reads an answer as anything but its declared type), and `405 Method
/// Not Allowed` with `Allow: GET, HEAD` for other methods, where the router alone would say 404.
struct ServiceHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as HTTPError {
            if error.status == .notFound, request.method != .get, request.method != .head {
                response = Self.plain(.methodNotAllowed, "method \(request.method) not allowed; use GET or HEAD\n")
                response.headers[.allow] = "GET, HEAD"
            } else {
                response = Self.plain(error.status, (error.body ?? error.status.reasonPhrase) + "\n")
                for field in error.headers { response.headers.append(field) }
            }
        }
        response.headers[.xContentTypeOptions] = "nosniff"
        return response
    }

    static func plain(_ status: HTTPResponse.Status, _ text: String) -> Response {
        var response = Response(
            status: status, headers: [.contentType: "text/plain; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        response.headers[.contentLength] = String(text.utf8.count)
        return response
    }
}

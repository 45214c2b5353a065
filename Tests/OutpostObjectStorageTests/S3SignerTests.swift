import Foundation
import Testing

@testable import OutpostObjectStorage

/// SigV4 against AWS's own published examples (docs/postgres.md, "Object storage").
@Suite struct S3SignerTests {
    @Test func theS3ReferencesGetObjectExampleSignsAsPublished() {
        // S3 API reference, "Signature Calculations for the Authorization Header", Example: GET Object.
        let headers = [
            "Host": "examplebucket.s3.amazonaws.com", "Range": "bytes=0-9",
            "x-amz-content-sha256": S3Signer.emptyPayloadHash, "x-amz-date": "20130524T000000Z",
        ]
        let request = S3Signer.canonicalRequest(method: "GET", path: "/test.txt", query: [], headers: headers, payloadHash: S3Signer.emptyPayloadHash)
        #expect(S3Signer.hash(Data(request.utf8)) == "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972")
        let signer = S3Signer(accessKey: "AKIAIOSFODNN7EXAMPLE", secretKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
        #expect(
            signer.authorization(
                method: "GET", path: "/test.txt", query: [], headers: headers, payloadHash: S3Signer.emptyPayloadHash, timestamp: "20130524T000000Z")
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    @Test func theQueryIsSortedByNameAsTheSigV4TestSuiteHasIt() {
        // AWS SigV4 test suite, get-vanilla-query-order-key-case.
        let signer = S3Signer(accessKey: "AKIDEXAMPLE", secretKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", service: "service")
        let authorization = signer.authorization(
            method: "GET", path: "/", query: [("Param2", "value2"), ("Param1", "value1")],
            headers: ["Host": "example.amazonaws.com", "X-Amz-Date": "20150830T123600Z"], payloadHash: S3Signer.emptyPayloadHash,
            timestamp: "20150830T123600Z")
        #expect(
            authorization.hasSuffix(
                "SignedHeaders=host;x-amz-date, Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500".replacingOccurrences(
                    of: ", ", with: ",")))
    }

    @Test func encodingKeepsOnlyUnreservedCharacters() {
        #expect(S3Signer.encode("a b/c~d+e=") == "a%20b%2Fc~d%2Be%3D")
        #expect(S3Signer.encode("/replicafiles/x y.gpkg", keepSlashes: true) == "/replicafiles/x%20y.gpkg")
        #expect(S3Signer.timestamp(Date(timeIntervalSince1970: 1_369_353_600)) == "20130524T000000Z")
    }

    @Test func listingsAndErrorsAreRead() {
        let xml = """
            <?xml version="1.0"?><ListBucketResult><IsTruncated>true</IsTruncated>\
            <Contents><Key>replicafiles/a&amp;b.gpkg</Key><LastModified>2026-11-24T06:00:00.000Z</LastModified><Size>12</Size></Contents>\
            <Contents><Key>replicafiles/c.gpkg</Key><LastModified>2026-11-24T06:00:01Z</LastModified><Size>0</Size></Contents>\
            <NextContinuationToken>tok/en</NextContinuationToken></ListBucketResult>
            """
        let page = S3XML.listing(xml)
        #expect(page.objects.map(\.key) == ["replicafiles/a&b.gpkg", "replicafiles/c.gpkg"] && page.objects.map(\.size) == [12, 0])
        #expect(page.objects[0].modified == 1_795_500_000_000 && page.objects[1].modified == 1_795_500_001_000 && page.next == "tok/en")
        #expect(S3XML.listing("<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>").next == nil)
        #expect(S3XML.error("<Error><Code>SignatureDoesNotMatch</Code><Message>no</Message></Error>") == "SignatureDoesNotMatch: no")
    }
}

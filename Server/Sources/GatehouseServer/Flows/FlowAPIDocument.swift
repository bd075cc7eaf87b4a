import Foundation
import Hummingbird

/// The OpenAPI 3.1 description of the flow API, served at `/openapi.json`. The end-to-end tests validate
/// real responses against it, so it cannot drift from what the server sends.
enum FlowAPIDocument {
    static func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>, issuer: String) {
        let document = Data(json.replacingOccurrences(of: "{{issuer}}", with: issuer).utf8)
        router.get("/openapi.json") { _, _ in JSONResponse.data(document, cacheable: true) }
    }

    static let json = #"""
        {
          "openapi": "3.1.0",
          "info": {
            "title": "Gatehouse flow API",
            "version": "1.0.0",
            "description": "Native sign-in flows. An app starts a flow with the parameters of an authorization request (PKCE S256 required for public clients), renders each node itself, submits the node's values, and on success exchanges the returned code at the token endpoint with its code verifier. The flow id is a secret bound to the client that started it; it expires.",
            "license": { "name": "Apache-2.0", "identifier": "Apache-2.0" }
          },
          "servers": [{ "url": "{{issuer}}" }],
          "paths": {
            \#(startPath("login", operation: "startLoginFlow", summary: "Start the login flow")),
            \#(startPath("registration", operation: "startRegistrationFlow",
                    summary: "Start registration (400 when the server does not allow it); ends signed in")),
            \#(startPath("recovery", operation: "startRecoveryFlow", summary: "Start password recovery; ends signed in with the new password")),
            \#(startPath("enrollment", operation: "startEnrollmentFlow",
                    summary: "Change two-step verification (new authenticator app or recovery codes) after signing in with every enrolled factor")),
            "/flows/{flow_id}": {
              "post": {
                "operationId": "submitFlowNode",
                "summary": "Submit the current node",
                "parameters": [
                  { "name": "flow_id", "in": "path", "required": true, "description": "The flow_id of the last response.", "schema": { "type": "string" } }
                ],
                "requestBody": {
                  "required": true,
                  "content": { "application/json": { "schema": { "$ref": "#/components/schemas/FlowSubmission" } } }
                },
                "responses": {
                  "200": {
                    "description": "The next node (status continue), the same node with messages (status error), or the authorization (status success)",
                    "content": { "application/json": { "schema": { "$ref": "#/components/schemas/FlowResponse" } } }
                  },
                  "404": {
                    "description": "The flow expired, was completed, does not exist, or belongs to another client (status failure)",
                    "content": { "application/json": { "schema": { "$ref": "#/components/schemas/FlowResponse" } } }
                  },
                  "429": {
                    "description": "Too many wrong codes (or a code asked for too often): the flow has ended (status failure, error too_many_attempts)",
                    "content": { "application/json": { "schema": { "$ref": "#/components/schemas/FlowResponse" } } }
                  },
                  "400": { "$ref": "#/components/responses/OAuthError" },
                  "413": { "$ref": "#/components/responses/OAuthError" },
                  "415": { "$ref": "#/components/responses/OAuthError" }
                }
              }
            }
          },
          "components": {
            "responses": {
              "OAuthError": {
                "description": "An RFC 6749 error",
                "content": { "application/json": { "schema": { "$ref": "#/components/schemas/OAuthError" } } }
              }
            },
            "schemas": {
              "FlowStartRequest": {
                "type": "object",
                "required": ["client_id", "redirect_uri", "scope"],
                "properties": {
                  "client_id": { "type": "string" },
                  "redirect_uri": { "type": "string" },
                  "scope": { "type": "string", "examples": ["openid profile email offline_access"] },
                  "state": { "type": "string", "maxLength": 2048 },
                  "nonce": { "type": "string", "maxLength": 512 },
                  "code_challenge": { "type": "string", "minLength": 43, "maxLength": 43 },
                  "code_challenge_method": { "const": "S256" },
                  "login_hint": { "type": "string", "maxLength": 256 },
                  "acr_values": { "type": "string", "maxLength": 512 }
                }
              },
              "FlowSubmission": {
                "type": "object",
                "required": ["client_id", "action", "values"],
                "properties": {
                  "client_id": { "type": "string" },
                  "action": { "type": "string", "description": "The id of one of the node's actions." },
                  "values": { "type": "object", "additionalProperties": { "$ref": "#/components/schemas/FieldValue" } },
                  "device_tokens": {
                    "type": "array", "maxItems": 8, "items": { "type": "string", "maxLength": 512 },
                    "description": "Device tokens this app was given by earlier sign-ins (FlowAuthorization.device_token). The account a token names is counted apart from guesses made elsewhere, so its owner is not kept out by them."
                  }
                }
              },
              "FieldValue": {
                "oneOf": [
                  { "type": "string" },
                  { "type": "array", "items": { "type": "string" }, "description": "The chosen values of a multiple choice field." }
                ]
              },
              "FlowResponse": {
                "type": "object",
                "additionalProperties": false,
                "required": ["status"],
                "properties": {
                  "status": { "enum": ["continue", "error", "failure", "success"] },
                  "flow_id": { "type": "string", "description": "Send it back to continue the flow. Secret." },
                  "node": { "$ref": "#/components/schemas/FlowNode" },
                  "failure": { "$ref": "#/components/schemas/OAuthError" },
                  "authorization": { "$ref": "#/components/schemas/FlowAuthorization" }
                },
                "allOf": [
                  { "if": { "properties": { "status": { "enum": ["continue", "error"] } } }, "then": { "required": ["flow_id", "node"] } },
                  { "if": { "properties": { "status": { "const": "failure" } } }, "then": { "required": ["failure"] } },
                  { "if": { "properties": { "status": { "const": "success" } } }, "then": { "required": ["authorization"] } }
                ]
              },
              "FlowNode": {
                "type": "object",
                "additionalProperties": false,
                "required": ["id", "name", "description", "category", "fields", "actions", "messages"],
                "properties": {
                  "id": { "type": "string", "description": "Stable identifier of the step, e.g. login.password." },
                  "name": { "type": "string" },
                  "description": { "type": "string" },
                  "category": { "type": "string", "description": "Which kind of screen this is, e.g. sign_in." },
                  "fields": { "type": "array", "items": { "$ref": "#/components/schemas/FlowField" } },
                  "actions": { "type": "array", "items": { "$ref": "#/components/schemas/FlowAction" } },
                  "messages": { "type": "array", "items": { "$ref": "#/components/schemas/FlowMessage" } }
                }
              },
              "FlowField": {
                "type": "object",
                "additionalProperties": false,
                "required": ["key", "type", "label", "required"],
                "properties": {
                  "key": { "type": "string" },
                  "type": { "enum": ["text", "password", "label", "qr_code", "single_choice", "multiple_choice", "phone_number", "one_time_code"] },
                  "label": { "type": "string" },
                  "required": { "type": "boolean" },
                  "validation": { "$ref": "#/components/schemas/FieldValidation" },
                  "options": { "type": "array", "items": { "$ref": "#/components/schemas/FieldOption" } },
                  "default_value": { "type": "string" },
                  "autocomplete": { "type": "string", "description": "The HTML autocomplete token, e.g. username, current-password, one-time-code." }
                }
              },
              "FieldValidation": {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                  "min_length": { "type": "integer", "minimum": 0 },
                  "max_length": { "type": "integer", "minimum": 0 },
                  "regex": { "type": "string", "description": "The whole value must match." },
                  "message": { "type": "string" }
                }
              },
              "FieldOption": {
                "type": "object",
                "additionalProperties": false,
                "required": ["value", "label"],
                "properties": { "value": { "type": "string" }, "label": { "type": "string" } }
              },
              "FlowAction": {
                "type": "object",
                "additionalProperties": false,
                "required": ["id", "type", "label"],
                "properties": {
                  "id": { "type": "string" },
                  "type": { "enum": ["submit", "link"] },
                  "label": { "type": "string" },
                  "flow": { "type": "string", "description": "For links: the flow they start." }
                }
              },
              "FlowMessage": {
                "type": "object",
                "additionalProperties": false,
                "required": ["level", "text"],
                "properties": {
                  "level": { "enum": ["error", "info"] },
                  "text": { "type": "string" },
                  "field": { "type": "string", "description": "The field the message is about; absent for the node as a whole." },
                  "code": { "type": "string", "examples": ["invalid_credentials", "throttled", "locked", "invalid_value", "already_answered"] }
                }
              },
              "FlowAuthorization": {
                "type": "object",
                "additionalProperties": false,
                "required": ["code", "iss", "redirect_uri"],
                "properties": {
                  "code": { "type": "string", "description": "Exchange it at the token endpoint with the code verifier. Single use, short-lived." },
                  "state": { "type": "string" },
                  "iss": { "type": "string" },
                  "redirect_uri": { "type": "string" },
                  "device_token": { "type": "string", "description": "Keep it on the device, also after signing out, and send it in device_tokens with later submissions." }
                }
              },
              "OAuthError": {
                "type": "object",
                "additionalProperties": false,
                "required": ["error"],
                "properties": { "error": { "type": "string" }, "error_description": { "type": "string" } }
              }
            }
          }
        }
        """#

    /// The path item that starts a flow of `kind`: the same request and answers for every kind.
    private static func startPath(_ kind: String, operation: String, summary: String) -> String {
        """
        "/flows/\(kind)": {
          "post": {
            "operationId": "\(operation)",
            "summary": "\(summary)",
            "requestBody": {
              "required": true,
              "content": { "application/json": { "schema": { "$ref": "#/components/schemas/FlowStartRequest" } } }
            },
            "responses": {
              "200": { "description": "The first node", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/FlowResponse" } } } },
              "400": { "$ref": "#/components/responses/OAuthError" },
              "413": { "$ref": "#/components/responses/OAuthError" },
              "415": { "$ref": "#/components/responses/OAuthError" }
            }
          }
        }
        """
    }
}

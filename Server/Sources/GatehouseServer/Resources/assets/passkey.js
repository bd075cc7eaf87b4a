// Passkey steps: hands the node's options to the browser's WebAuthn API and submits the credential it returns, in
// WebAuthn's JSON form. Without JavaScript or WebAuthn the passkey part and its button stay hidden, and the page's
// other ways (another method, a code) still work.
(function () {
  var parts = document.querySelectorAll("div.passkey[data-ceremony]");
  if (!parts.length || !window.PublicKeyCredential || !navigator.credentials) return;

  function toBytes(text) {
    var base64 = text.replace(/-/g, "+").replace(/_/g, "/");
    while (base64.length % 4) base64 += "=";
    var binary = atob(base64);
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes.buffer;
  }

  function toText(buffer) {
    var bytes = new Uint8Array(buffer);
    var binary = "";
    for (var i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function descriptors(list) {
    return (list || []).map(function (item) { return { type: item.type, id: toBytes(item.id), transports: item.transports }; });
  }

  // The browser's own JSON parsers where it has them (WebAuthn Level 3), else the same conversion by hand.
  function creationOptions(json) {
    if (PublicKeyCredential.parseCreationOptionsFromJSON) return PublicKeyCredential.parseCreationOptionsFromJSON(json);
    var options = Object.assign({}, json);
    options.challenge = toBytes(json.challenge);
    options.user = Object.assign({}, json.user, { id: toBytes(json.user.id) });
    options.excludeCredentials = descriptors(json.excludeCredentials);
    return options;
  }

  function requestOptions(json) {
    if (PublicKeyCredential.parseRequestOptionsFromJSON) return PublicKeyCredential.parseRequestOptionsFromJSON(json);
    var options = Object.assign({}, json);
    options.challenge = toBytes(json.challenge);
    options.allowCredentials = descriptors(json.allowCredentials);
    return options;
  }

  function credentialJSON(credential) {
    if (typeof credential.toJSON === "function") {
      try { return credential.toJSON(); } catch (error) { /* fall through to the conversion by hand */ }
    }
    var response = credential.response;
    var json = { id: credential.id, rawId: toText(credential.rawId), type: credential.type, response: { clientDataJSON: toText(response.clientDataJSON) },
      clientExtensionResults: credential.getClientExtensionResults ? credential.getClientExtensionResults() : {},
      authenticatorAttachment: credential.authenticatorAttachment || undefined };
    if (response.attestationObject) {
      json.response.attestationObject = toText(response.attestationObject);
      json.response.transports = response.getTransports ? response.getTransports() : [];
    } else {
      json.response.authenticatorData = toText(response.authenticatorData);
      json.response.signature = toText(response.signature);
      json.response.userHandle = response.userHandle ? toText(response.userHandle) : null;
    }
    return json;
  }

  parts.forEach(function (part) {
    var form = part.closest("form");
    var input = part.querySelector('input[type="hidden"]');
    var button = form && form.querySelector('button[data-passkey]');
    if (!form || !input || !button) return;
    var ceremony = part.getAttribute("data-ceremony");
    var options = JSON.parse(part.getAttribute("data-options"));
    part.hidden = false;
    button.hidden = false;
    var problem = document.createElement("p");
    problem.className = "error";
    problem.setAttribute("role", "alert");
    function send(credential) {
      input.value = JSON.stringify(credentialJSON(credential));
      form.requestSubmit(button);
    }
    // On the sign-in page the browser may offer saved passkeys in the username field (conditional mediation); a
    // click on the button cancels that offer and asks directly.
    var offer = null;
    var username = form.querySelector('input[autocomplete~="webauthn"]');
    if (ceremony === "get" && username && window.AbortController && PublicKeyCredential.isConditionalMediationAvailable) {
      PublicKeyCredential.isConditionalMediationAvailable().then(function (available) {
        if (!available) return;
        offer = new AbortController();
        navigator.credentials.get({ mediation: "conditional", signal: offer.signal, publicKey: requestOptions(options) })
          .then(send).catch(function () { /* cancelled by the button, or the person typed a password instead */ });
      });
    }
    form.addEventListener("submit", function (event) {
      // Other actions (the password, another method, set up something else) go as they are; the credential goes
      // once it exists.
      if (event.submitter !== button || input.value) return;
      event.preventDefault();
      if (offer) { offer.abort(); offer = null; }
      var call = ceremony === "create"
        ? navigator.credentials.create({ publicKey: creationOptions(options) })
        : navigator.credentials.get({ publicKey: requestOptions(options) });
      call.then(send).catch(function (error) {
        problem.textContent = error && error.name === "NotAllowedError"
          ? "The passkey request was cancelled or timed out. Try again, or choose another way."
          : "Your browser could not use a passkey here: " + (error && error.message ? error.message : error);
        part.appendChild(problem);
      });
    });
  });
})();

package pqkit.testkms;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.crypto.KeyAccessDeniedException;
import org.apache.parquet.crypto.ParquetCryptoRuntimeException;
import org.apache.parquet.crypto.keytools.KeyToolkit;
import org.apache.parquet.crypto.keytools.KmsClient;

/**
 * A KMS for tests only: the master keys are plain text in the Hadoop setting
 * {@code parquet.encryption.key.list} ("id:base64key, id:base64key, ...").
 *
 * <p>Keys are wrapped as pqkit's {@code InMemoryKms} wraps them: AES-GCM with the master key,
 * the master key's id (UTF-8) as AAD, the nonce, ciphertext and tag as base64. So files
 * written through one read through the other when both hold the same master keys.
 */
public final class ListedKeysKms implements KmsClient {
  public static final String KEY_LIST = "parquet.encryption.key.list";

  private final Map<String, byte[]> masterKeys = new HashMap<>();

  @Override
  public void initialize(Configuration conf, String kmsInstanceID, String kmsInstanceURL,
      String accessToken) {
    String list = conf.getTrimmed(KEY_LIST);
    if (list == null || list.isEmpty()) {
      throw new ParquetCryptoRuntimeException("ListedKeysKms has no master keys: set " + KEY_LIST);
    }
    for (String entry : list.split(",")) {
      String[] idAndKey = entry.trim().split(":", 2);
      if (idAndKey.length != 2) {
        throw new ParquetCryptoRuntimeException(
            "an entry of " + KEY_LIST + " is not id:base64key");
      }
      masterKeys.put(idAndKey[0].trim(), Base64.getDecoder().decode(idAndKey[1].trim()));
    }
  }

  private byte[] masterKey(String id) {
    byte[] key = masterKeys.get(id);
    if (key == null) {
      throw new KeyAccessDeniedException("ListedKeysKms has no master key " + id);
    }
    return key;
  }

  @Override
  public String wrapKey(byte[] keyBytes, String masterKeyIdentifier) {
    return KeyToolkit.encryptKeyLocally(keyBytes, masterKey(masterKeyIdentifier),
        masterKeyIdentifier.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public byte[] unwrapKey(String wrappedKey, String masterKeyIdentifier) {
    return KeyToolkit.decryptKeyLocally(wrappedKey, masterKey(masterKeyIdentifier),
        masterKeyIdentifier.getBytes(StandardCharsets.UTF_8));
  }
}

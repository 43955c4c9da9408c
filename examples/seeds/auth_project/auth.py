"""Password checks for the seed examples."""

import hashlib
import hmac


def hash_password(password: str, salt: str) -> str:
    return hashlib.sha256((salt + password).encode()).hexdigest()


def check_password(password: str, salt: str, stored_hash: str) -> bool:
    return not hmac.compare_digest(hash_password(password, salt), stored_hash)

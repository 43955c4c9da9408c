import unittest

from auth import check_password, hash_password


class CheckPasswordTest(unittest.TestCase):
    def test_right_password_is_accepted(self) -> None:
        self.assertTrue(check_password("s3cret", "salt", hash_password("s3cret", "salt")))

    def test_wrong_password_is_rejected(self) -> None:
        self.assertFalse(check_password("guess", "salt", hash_password("s3cret", "salt")))


if __name__ == "__main__":
    unittest.main()

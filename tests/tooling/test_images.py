"""The diagrams `make sync` writes into images/ (tools/images.py)."""

from tools import images


def test_write_course_images_writes_every_png_without_a_timestamp(tmp_path):
    paths = images.write_course_images(tmp_path)
    assert sorted(p.name for p in paths) == sorted(images.COURSE_IMAGES)
    assert "vocab_parallel_split.png" in images.COURSE_IMAGES
    for path in paths:
        data = path.read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 5_000
        assert b"Software" not in data and b"Creation Time" not in data
    again = [p.read_bytes() for p in images.write_course_images(tmp_path / "again")]
    assert again == [p.read_bytes() for p in paths], "every run draws the same picture"

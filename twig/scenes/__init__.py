"""Built-in scene files (TOML) and the loader that turns a scene into a :class:`twig.World`."""

from twig.scenes.loader import SceneInfo, list_scenes, load_scene, scene_path

__all__ = ["SceneInfo", "list_scenes", "load_scene", "scene_path"]
